import { build } from "vite"

/** Vitest global setup: the served page is Vite's build output, so every run builds it first (about two seconds). */
export default async function buildWebPage() {
  await build({ configFile: "src/web/vite.config.ts", logLevel: "warn" })
}
