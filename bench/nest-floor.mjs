// The floor Nest puts under our server: bare Fastify's fixed answer (bench/bare-fastify.mjs), served
// through Nest's Fastify adapter (an empty module, the application's create options) with
// @fastify/multipart registered as the application registers it. What it costs per request over
// bare Fastify is spent before any code of ours runs.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import multipart from '@fastify/multipart';

const result = { content: [{ type: 'text', text: '{"echo":"hi"}' }], structuredContent: { echo: 'hi' } };
class EmptyModule {}
Module({})(EmptyModule);
const adapter = new FastifyAdapter();
void adapter.getInstance().register(multipart);
const app = await NestFactory.create(EmptyModule, adapter, { logger: false, bodyParser: false, return503OnClosing: true });
adapter.getInstance().post('/mcp', async (request) => ({ result, jsonrpc: '2.0', id: request.body?.id ?? null }));
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 18083);
await app.listen(port, host);
console.log(`Nest floor listening on http://${host}:${port}/mcp`);
