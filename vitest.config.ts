import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only add contention with the databases the tests start.
    maxWorkers: 2,
    minWorkers: 1
  }
})
