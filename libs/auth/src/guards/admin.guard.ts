import { ForbiddenException, Injectable, type ExecutionContext } from '@nestjs/common';
import { ADMIN_ROLE } from '../users.service.js';
import { JwtAuthGuard, type AuthenticatedRequest } from './jwt-auth.guard.js';

/**
 * For `/admin/*` routes: a JWT whose roles claim holds `admin`, or whose (verified) e-mail is in
 * `ADMIN_EMAILS`. 401 without a valid token, 403 for anyone else.
 */
@Injectable()
export class AdminGuard extends JwtAuthGuard {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const roles = context.switchToHttp().getRequest<AuthenticatedRequest>().user?.roles ?? [];
    if (!roles.includes(ADMIN_ROLE)) throw new ForbiddenException('Administrators only');
    return true;
  }
}
