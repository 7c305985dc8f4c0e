import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/server';
import { Injectable, McpCompletion, McpPrompt, McpResource, McpResourceTemplate } from 'mirobody';
import { TEST_IMAGE_BASE64 } from './_fixture-data.js';

const userText = (text: string): GetPromptResult['messages'][number] => ({ role: 'user', content: { type: 'text', text } });

/** The resources, resource template, prompts and completion the conformance scenarios read by name or URI. */
@Injectable()
export class ConformanceResourcesService {
  @McpResource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  })
  staticText(): string {
    return 'This is the content of the static text resource.';
  }

  @McpResource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
  })
  staticBinary(uri: string): ReadResourceResult {
    return { contents: [{ uri, mimeType: 'image/png', blob: TEST_IMAGE_BASE64 }] };
  }

  /** The scenario checks that the `{id}` it chose comes back in the content. */
  @McpResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  })
  template(uri: string, variables: Record<string, string | string[]>): ReadResourceResult {
    const id = variables.id;
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
  }

  /** Target of the subscribe/unsubscribe scenarios; the core acknowledges both requests. */
  @McpResource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'Static resource registered for subscribe/unsubscribe testing',
    mimeType: 'text/plain',
  })
  watchedResource(): string {
    return 'Watched resource content';
  }

  @McpPrompt({ name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A simple prompt without arguments' })
  simplePrompt(): GetPromptResult {
    return { messages: [userText('This is a simple prompt for testing.')] };
  }

  @McpPrompt({
    name: 'test_prompt_with_arguments',
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  })
  promptWithArguments(args: Record<string, string>): GetPromptResult {
    return { messages: [userText(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`)] };
  }

  /** Declaring a completion is what advertises the `completions` capability the scenario calls. */
  @McpCompletion({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: 'arg1' })
  completeArg1(value: string): string[] {
    return ['test-value-1', 'test-value-2', 'other'].filter((candidate) => candidate.startsWith(value));
  }

  @McpPrompt({
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  })
  promptWithEmbeddedResource(args: Record<string, string>): GetPromptResult {
    return {
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        userText('Please process the embedded resource above.'),
      ],
    };
  }

  @McpPrompt({ name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' })
  promptWithImage(): GetPromptResult {
    return {
      messages: [{ role: 'user', content: { type: 'image', data: TEST_IMAGE_BASE64, mimeType: 'image/png' } }, userText('Please analyze the image above.')],
    };
  }
}
