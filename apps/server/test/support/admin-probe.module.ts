import { Controller, Get, Module } from '@nestjs/common';
import { AdminOnly, CurrentCaller } from '@app/auth';
import type { UserInfo } from '@app/common';

/** An `/admin/*` route, as an app would add one, to exercise `@AdminOnly()`. */
@Controller('admin')
class AdminProbeController {
  @Get('ping')
  @AdminOnly()
  ping(@CurrentCaller() caller: UserInfo) {
    return { admin: true, email: caller.email ?? null };
  }
}

@Module({ controllers: [AdminProbeController] })
export class AdminProbeModule {}
