// apps/server/src/my-server.ts: the server with a module of your own; run it with
// SERVER_ENTRY=apps/server/src/my-server.ts npm run start:dev (or npm start).
import { Module } from '@nestjs/common';
import { Arg, bootstrap, Injectable, McpTool, ok } from 'mirobody';

@Injectable()
export class GreetingService {
  @McpTool({ description: 'Greets someone by name.' })
  greet(@Arg('name', { description: 'Who to greet, e.g. "Ada"' }) name: string) {
    return ok({ greeting: `Hello, ${name}` });
  }
}

@Module({ providers: [GreetingService] })
export class GreetingToolsModule {}

await bootstrap({ imports: [GreetingToolsModule] });
