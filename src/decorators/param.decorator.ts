import { addParam } from '../metadata/metadata';
import type { ParamOptions } from '../metadata/types';

/**
 * Marks a property of an input class as a tool parameter. Type and constraints come from the
 * property's design type and its class-validator decorators; these options describe it to the
 * model and override what cannot be inferred.
 */
export function Param(options: ParamOptions = {}): PropertyDecorator {
  return (prototype, propertyName) => {
    if (typeof propertyName !== 'string') throw new TypeError('@Param() needs a string property name');
    addParam(prototype.constructor, { ...options, propertyName });
  };
}
