import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

/** The web page: src/web/index.html and its modules, built into dist/web with content-hashed assets. */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("../../dist/web", import.meta.url)),
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022"
  }
})
