import { AsyncResource } from 'node:async_hooks';

/** Marks the prototype once the lean `bind` is in place, so installing twice changes nothing. */
const INSTALLED = Symbol.for('wallet-pass.leanAsyncResourceBind');

/**
 * `AsyncResource.prototype.bind` without the `asyncResource` property it attaches to the bound
 * function, which Node has deprecated since v20 (DEP0172) and is removing.
 *
 * Why it matters: node:http2's `request()` calls `bind` once per request, and Node's `bind`
 * builds that deprecated property from two `deprecate()` wrappers, each made a prototype user
 * of a fresh function. V8's young-generation collector keeps prototype users alive until the
 * next full collection, and the wrappers hold the new stream, so every finished request (its
 * stream, headers and listeners) was moved to the old generation: about 3 KB per request
 * with one request in flight, where nothing should survive (`npm run bench:h2-promotion`).
 * In the fan-out worker it was about 40 % of what was promoted and a fifth of the CPU per push;
 * its RSS growth stayed where it was (docs/decisions.md, "A lean AsyncResource.bind in both
 * processes").
 *
 * The bound function behaves as Node's does in everything else: it runs `fn` in the resource's
 * execution context with the caller's `this` (or `thisArg`) and arguments, returns what `fn`
 * returns, and has `fn`'s `length`. Installed once per process, by the mains.
 */
export function installLeanAsyncResourceBind(): void {
  const prototype = AsyncResource.prototype as AsyncResource & { [INSTALLED]?: true };
  if (prototype[INSTALLED] === true) return;
  const nodeBind = Object.getOwnPropertyDescriptor(prototype, 'bind')?.value as (
    this: AsyncResource,
    fn: unknown,
  ) => Callable;
  // Node calls it as `bind(fn)` and as `bind(fn, thisArg)` (the static `AsyncResource.bind`).
  function bind(this: AsyncResource, fn: Callable, thisArg?: unknown): Callable {
    // Node's own throws its ERR_INVALID_ARG_TYPE.
    if (typeof fn !== 'function') return nodeBind.call(this, fn);
    return leanBound(this, fn, thisArg);
  }
  Object.defineProperty(prototype, 'bind', {
    configurable: true,
    enumerable: false,
    writable: true,
    value: bind,
  });
  Object.defineProperty(prototype, INSTALLED, { value: true, configurable: true });
}

type Callable = (...args: unknown[]) => unknown;

/** `fn` run in `resource`'s execution context, with `thisArg` or else the caller's `this`. */
function leanBound(resource: AsyncResource, fn: Callable, thisArg: unknown): Callable {
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]): unknown {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (...args: unknown[]): unknown => resource.runInAsyncScope(fn, thisArg, ...args);
  Object.defineProperty(bound, 'length', {
    configurable: true,
    enumerable: false,
    writable: false,
    value: fn.length,
  });
  return bound;
}
