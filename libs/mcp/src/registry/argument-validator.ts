import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { LONE_SURROGATE_PROBLEM, pathsWithLoneSurrogates } from '@app/common';
import type { JsonSchema } from '../decorators/metadata.types.js';

// ajv-formats ships CommonJS; under ESM its default export arrives wrapped.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ?? addFormatsPlugin) as unknown as <T extends Ajv | Ajv2020>(
  ajv: T,
) => T;

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const OPTIONS = { allErrors: true, useDefaults: true, coerceTypes: false, strict: false };

/** One problem with a call's arguments: the argument's dotted path (`''` for the arguments as a whole) and a sentence naming it. */
export interface ArgumentProblem {
  argument: string;
  sentence: string;
}

/** The check of a tool's arguments, applying defaults in place: the problems, none when the arguments are valid. */
export type ArgumentProblems = (args: Record<string, unknown>) => readonly ArgumentProblem[];

const NO_PROBLEMS: readonly ArgumentProblem[] = Object.freeze([]);

/** The problems as one sentence, each once: what a tool's error result says. */
export function describeProblems(problems: readonly ArgumentProblem[]): string | undefined {
  return problems.length ? [...new Set(problems.map((problem) => problem.sentence))].join('; ') : undefined;
}

/** Compiles argument schemas once and turns ajv's findings into sentences that name the argument. */
export class ArgumentValidator {
  private readonly ajv: Ajv;
  /** For hand-written schemas that declare the 2020-12 dialect (`$schema`), which the draft-07 instance refuses. */
  private readonly ajv2020: Ajv2020;

  constructor() {
    this.ajv = addFormats(new Ajv(OPTIONS));
    this.ajv2020 = addFormats(new Ajv2020(OPTIONS));
  }

  /**
   * Returns a function that applies defaults in place and answers `undefined` or the problems:
   * the schema's, and text that is not valid Unicode (which no schema keyword checks).
   */
  compile(schema: JsonSchema): (args: Record<string, unknown>) => string | undefined {
    const problemsOf = this.compileProblems(schema);
    return (args) => describeProblems(problemsOf(args));
  }

  /** `compile`, with each problem apart and naming its argument (a REST answer's `fields`). */
  compileProblems(schema: JsonSchema): ArgumentProblems {
    const validate: ValidateFunction = (schema.$schema === DRAFT_2020_12 ? this.ajv2020 : this.ajv).compile(schema);
    return (args) => {
      const valid = validate(args);
      const broken = pathsWithLoneSurrogates(args);
      if (valid && broken.length === 0) return NO_PROBLEMS;
      const problems = valid ? [] : (validate.errors ?? []).map(describeError);
      for (const path of broken) problems.push({ argument: path, sentence: `argument "${path}" ${LONE_SURROGATE_PROBLEM}` });
      return problems;
    };
  }

  /** `compile(schema)(value)` for a schema met once (an elicitation's `requestedSchema`), which ajv then forgets: its cache would keep every one. */
  checkOnce(schema: JsonSchema, value: Record<string, unknown>): string | undefined {
    try {
      return this.compile(schema)(value);
    } finally {
      (schema.$schema === DRAFT_2020_12 ? this.ajv2020 : this.ajv).removeSchema(schema);
    }
  }
}

function argumentPath(instancePath: string): string {
  return instancePath.slice(1).split('/').join('.');
}

function describeError(error: ErrorObject): ArgumentProblem {
  const path = argumentPath(error.instancePath);
  const child = (name: unknown) => `${path ? `${path}.` : ''}${String(name)}`;
  switch (error.keyword) {
    case 'required': {
      const argument = child(error.params.missingProperty);
      return { argument, sentence: `missing required argument "${argument}"` };
    }
    case 'additionalProperties': {
      const argument = child(error.params.additionalProperty);
      return { argument, sentence: `unknown argument "${argument}"` };
    }
    case 'enum':
      return {
        argument: path,
        sentence: `argument "${path}" must be one of: ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`,
      };
    default:
      return { argument: path, sentence: path ? `argument "${path}" ${error.message}` : `arguments ${error.message}` };
  }
}
