import { it, makeMethods } from "@effect/vitest"

/**
 * Test files share their modules (`isolate: false` in vitest.config.ts), and @effect/vitest's `layer(...)` binds the
 * methods of its shared `it` to that layer's runtime. Each file starts again from the default methods, so that no
 * test runs in the runtime (and without the test services) of a layer another file made.
 */
makeMethods(it)
