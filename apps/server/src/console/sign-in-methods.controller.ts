import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { ApiTag } from '@app/common';

export class SignInMethodsDto {
  @ApiProperty({ description: 'Whether people sign in at the company identity provider: GET /console/sign-in/oidc starts it' }) oidc: boolean;
  @ApiProperty({ description: 'One-time links from `npm run cli -- console-link` always work' }) link: boolean;
}

export const SIGN_IN_METHODS = Symbol('SIGN_IN_METHODS');

/** What the console's sign-in page offers, which depends on the configuration alone. */
@ApiTag('console')
@Controller('console/sign-in/methods')
@Public()
export class SignInMethodsController {
  constructor(@Inject(SIGN_IN_METHODS) private readonly methods: SignInMethodsDto) {}

  @Get()
  @ApiOperation({ summary: 'List the ways to sign in to the console' })
  @ApiOkResponse({ type: SignInMethodsDto })
  list(): SignInMethodsDto {
    return this.methods;
  }
}
