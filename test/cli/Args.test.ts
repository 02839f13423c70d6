import { describe, expect, it } from "@effect/vitest"
import { parseArgs } from "../../src/cli/Args.ts"

describe("parseArgs", () => {
  it("reads --name value and --name=value pairs, and words", () => {
    expect(parseArgs(["serve", "--tcpListenPort", "9000", "--dataSourceUrl=postgresql://h/db?a=b"])).toEqual({
      words: ["serve"],
      options: { tcpListenPort: "9000", dataSourceUrl: "postgresql://h/db?a=b" },
      help: false
    })
  })

  it("takes a value that starts with a single dash, such as a negative number", () => {
    expect(parseArgs(["--tcpListenPort", "-1"]).options).toEqual({ tcpListenPort: "-1" })
  })

  it("reads a flag without value as true", () => {
    expect(parseArgs(["user", "add", "bob", "--admin", "--password", "pw"]).options).toEqual({ admin: "true", password: "pw" })
    expect(parseArgs(["--browserOpenLink"]).options).toEqual({ browserOpenLink: "true" })
  })

  it("maps the reference's short -s to --settings", () => {
    expect(parseArgs(["-s", "/etc/quarry.properties"]).options).toEqual({ settings: "/etc/quarry.properties" })
  })

  it("recognises --help and -h anywhere", () => {
    expect(parseArgs(["serve", "--mode", "SERVER", "--help"]).help).toBe(true)
    expect(parseArgs(["-h"]).help).toBe(true)
  })
})
