import { Controller, Get, Module, UseGuards } from '@nestjs/common';
import { AdminGuard, ApiCaller } from '@app/auth';
import type { UserInfo } from '@app/mcp';

/** An `/admin/*` route, as an app would add one, to exercise `AdminGuard`. */
@Controller('admin')
class AdminProbeController {
  @Get('ping')
  @UseGuards(AdminGuard)
  ping(@ApiCaller() caller: UserInfo) {
    return { admin: true, email: caller.email ?? null };
  }
}

@Module({ controllers: [AdminProbeController] })
export class AdminProbeModule {}
