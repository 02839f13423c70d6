import { describe, expect, it } from "@effect/vitest"
import { formatProperties, parseProperties } from "../../src/config/Properties.ts"

describe("parseProperties", () => {
  it("reads key=value, key: value and key value lines, skipping comments and blank lines", () => {
    const text = [
      "# a comment",
      "! another comment",
      "",
      "mode=SERVER",
      "  tcpListenPort : 9090",
      "dataDir /data/docs",
      "\tdefaultProject=\tp1"
    ].join("\n")
    expect(parseProperties(text)).toEqual({ mode: "SERVER", tcpListenPort: "9090", dataDir: "/data/docs", defaultProject: "p1" })
  })

  it("keeps separators inside values and splits on the first one", () => {
    expect(parseProperties("dataSourceUrl=postgresql://u:p@h:5432/db?a=b\nelasticsearchAddress:http://es:9200")).toEqual({
      dataSourceUrl: "postgresql://u:p@h:5432/db?a=b",
      elasticsearchAddress: "http://es:9200"
    })
  })

  it("accepts CRLF and CR line endings", () => {
    expect(parseProperties("a=1\r\nb=2\rc=3\r\n")).toEqual({ a: "1", b: "2", c: "3" })
  })

  it("joins continued lines and drops the continuation's leading whitespace", () => {
    expect(parseProperties("queueName=extract\\\n    :queue\nnext=1")).toEqual({ queueName: "extract:queue", next: "1" })
  })

  it("does not continue a line ending in an even number of backslashes", () => {
    expect(parseProperties("dataDir=C:\\\\\nnext=1")).toEqual({ dataDir: "C:\\", next: "1" })
  })

  it("does not continue comment lines", () => {
    expect(parseProperties("# comment \\\nmode=LOCAL")).toEqual({ mode: "LOCAL" })
  })

  it("resolves escapes in keys and values", () => {
    expect(parseProperties("my\\ key\\=x=a\\tb\\nc\\u00e9\\\\d\\q")).toEqual({ "my key=x": "a\tb\nc\u00e9\\dq" })
  })

  it("drops unescaped trailing whitespace but keeps escaped spaces", () => {
    expect(parseProperties("mode=SERVER  \t\nname=\\ padded\\ \n")).toEqual({ mode: "SERVER", name: " padded " })
  })

  it("gives a key without a value the empty string, and the last duplicate wins", () => {
    expect(parseProperties("platform\nmode=LOCAL\nmode=SERVER")).toEqual({ platform: "", mode: "SERVER" })
  })

  it("reads a malformed \\u escape as a plain u", () => {
    expect(parseProperties("a=\\u12x")).toEqual({ a: "u12x" })
  })
})

describe("formatProperties", () => {
  it("writes one sorted key=value line per entry", () => {
    expect(formatProperties({ tcpListenPort: "8080", mode: "LOCAL" })).toBe("mode=LOCAL\ntcpListenPort=8080\n")
  })

  it("leaves ordinary URLs and paths readable", () => {
    expect(formatProperties({ dataSourceUrl: "postgresql://h:5432/db?x=y" })).toBe("dataSourceUrl=postgresql://h:5432/db?x=y\n")
  })

  it("round-trips values that need escaping", () => {
    const values = {
      "key with spaces=and:colons": "v",
      "#hash": "!bang",
      multiline: "one\ntwo\r\nthree",
      padded: "  both ends  ",
      backslashes: "C:\\data\\",
      control: "a\u0001b\tc\fd",
      unicode: "é 日本 🙂",
      empty: ""
    }
    expect(parseProperties(formatProperties(values))).toEqual(values)
  })
})
