import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"

/** Debian's Chromium, which `.ci/run` installs when missing. */
export const chromiumPath = "/usr/bin/chromium"
export const chromiumFound = fs.existsSync(chromiumPath)

export const screenshotsDir = path.resolve("test-results")

const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync"
]

export interface Browser {
  readonly context: BrowserContext
  readonly page: Page
  readonly close: () => Promise<void>
}

/** One headless Chromium with a fresh profile folder (`--user-data-dir`), removed on close. */
export const launchBrowser = async (): Promise<Browser> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: flags,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 }
  })
  const page = context.pages()[0] ?? (await context.newPage())
  return {
    context,
    page,
    close: async () => {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}

export const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(screenshotsDir, { recursive: true })
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true })
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<string> }>
}

/** Runs axe-core in the page; answers the serious and critical violations as readable lines. */
export const seriousViolations = async (page: Page) => {
  // Evaluated through the browser's debugging protocol, which the page's Content-Security-Policy (no inline
  // script) does not apply to, where an added script tag would be refused.
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)"
  )) as ReadonlyArray<AxeViolation>
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`
    )
}
