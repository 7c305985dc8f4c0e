import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { invalidRequest } from './validation.js';

/**
 * A path parameter that must be a UUID (`@Param('userId', UuidParamPipe)`): anything else is the
 * same 400 naming the parameter on every route, before a service or the database sees it.
 */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (isUUID(value)) return value;
    throw invalidRequest({ [metadata.data ?? 'id']: 'must be a UUID' });
  }
}
