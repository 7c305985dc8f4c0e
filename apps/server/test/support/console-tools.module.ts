import { Injectable, Module } from '@nestjs/common';
import { Arg, McpTool } from '@app/mcp';

/** A tool class that turns itself off at start-up, as one whose integration is not configured does. */
@Injectable()
export class WeatherIntegrationService {
  static enabled(): boolean {
    return false;
  }

  @McpTool({ description: 'Looks up the weather; needs an API key this server lacks', title: 'Weather' })
  lookUpWeather(@Arg('city') city: string) {
    return `sunny in ${city}`;
  }
}

/** A tool with a bug: it fails inside the server, which callers see as "Internal error (request id …)". */
@Injectable()
export class BrokenProbeService {
  @McpTool({ description: 'Fails inside the server, as a bug would.' })
  breakNow() {
    throw new Error('a bug in the tool, with details no caller may see');
  }
}

@Module({ providers: [WeatherIntegrationService, BrokenProbeService] })
export class ConsoleToolsModule {}
