import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { McpCallObserver, ToolCallEvent } from '@app/mcp';
import { BackgroundWrites } from '@app/common';
import { ToolCallEntity } from './entities/tool-call.entity.js';

/** Records each `tools/call` by a known user after the answer has gone; a failed insert is logged. */
@Injectable()
export class AccessLog implements McpCallObserver {
  constructor(
    @InjectRepository(ToolCallEntity) private readonly calls: Repository<ToolCallEntity>,
    private readonly background: BackgroundWrites,
  ) {}

  toolCalled({ caller, tool, success, durationMs }: ToolCallEvent): void {
    this.background.run(`the call of ${tool} in the access log`, () =>
      this.calls.insert({ userId: caller.userId, tool, success, durationMs: Math.round(durationMs) }),
    );
  }
}
