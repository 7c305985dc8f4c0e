import { Controller, Get, Module, Req, UseGuards } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AdminOnly, AuthModule, CurrentCaller } from '@app/auth';
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

/** A route behind passport's own `AuthGuard()`, as an app used to `@nestjs/passport` would write it: the app's JWT strategy by default. */
@Controller('passport-probe')
class PassportProbeController {
  @Get()
  @UseGuards(AuthGuard())
  whoami(@Req() request: { user: UserInfo }) {
    return { email: request.user.email ?? null };
  }
}

/** Imports `AuthModule` for what its guards inject, as any module with guarded routes does. */
@Module({ imports: [AuthModule], controllers: [AdminProbeController, PassportProbeController] })
export class AdminProbeModule {}
