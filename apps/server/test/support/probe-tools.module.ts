import { Injectable, Module } from '@nestjs/common';
import { Arg, CurrentUser, McpTool, McpToolContext, ok, ToolContext, type UserInfo } from '@app/mcp';

/** Tools that exercise what `echo` cannot: notifications, integers with defaults, a caller. */
@Injectable()
export class ProbeService {
  @McpTool({ description: 'Counts to `steps`, reporting progress and logging each step.' })
  async countSlowly(
    @Arg('steps', { description: 'How many steps, e.g. 3', type: 'integer', schema: { minimum: 1, maximum: 10 } }) steps: number,
    @ToolContext() context: McpToolContext,
  ) {
    for (let step = 1; step <= steps; step++) {
      await context.progress(step, steps, `step ${step}`);
      await context.log('info', `step ${step} of ${steps}`);
    }
    return ok({ counted: steps });
  }

  @McpTool({ description: 'Adds two numbers; `b` defaults to 10.' })
  add(@Arg('a', { description: 'First addend, e.g. 2' }) a: number, @Arg('b', { description: 'Second addend', default: 10 }) b: number) {
    return ok({ sum: a + b });
  }

  @McpTool({ description: 'Tells the caller their own roles.' })
  myRoles(@CurrentUser() user: UserInfo) {
    return ok({ roles: [...(user.roles ?? [])] });
  }

  @McpTool({ description: 'Tells the caller their own e-mail address.' })
  myEmail(@CurrentUser() user: UserInfo) {
    return ok({ email: user.email });
  }
}

@Module({ providers: [ProbeService] })
export class ProbeToolsModule {}
