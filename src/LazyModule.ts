import { Effect } from "effect"

/**
 * A module loaded at its first use and kept: heavy parsers and libraries were part of every process's start-up
 * (each test server, each `review` command) whether it used them or not. The promise itself is kept because every
 * `import()` call, even of a module already loaded, goes through the module loader's resolution, and under tsx that
 * is a blocking round trip to its hooks thread: asked once per file, it took 15 s of an index run's main thread.
 */
export const lazyModule = <A>(load: () => Promise<A>): Effect.Effect<A> => {
  let loaded: Promise<A> | undefined
  return Effect.promise(() => (loaded ??= load()))
}
