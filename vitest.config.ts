import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The server serves the built web page (dist/web), so a fresh clone needs no separate build step.
    globalSetup: ["test/web/buildWebPage.ts", "test/setup/postgresTemplate.ts"],
    // Test files share one module graph per worker: loading Effect, the server and the databases' clients again for
    // each of 124 files took 186 s of the suite's 600. What a file changes in a shared module is undone here.
    isolate: false,
    setupFiles: ["test/setup/effectVitest.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only add contention with the databases the tests start.
    maxWorkers: 2,
    minWorkers: 1
  }
})
