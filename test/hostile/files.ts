import { deflateRawSync, gzipSync } from "node:zlib"

/** Hostile files built in code, byte by byte, so that each lie is exactly the one a test names. */

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

const crc32 = (bytes: Uint8Array) => {
  let crc = 0xffffffff
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

export interface ZipMember {
  readonly name: string
  readonly content: Uint8Array
  /** Sizes written in both headers instead of the true ones (the lie of a liar zip). */
  readonly declaredSize?: number
  readonly declaredCompressedSize?: number
  /** Sets the encryption flag (the data is not really encrypted: readers must refuse it from the flag). */
  readonly encrypted?: boolean
}

/** A zip of deflated members, with whatever sizes and flags the members declare. */
export const buildZip = (members: ReadonlyArray<ZipMember>): Buffer => {
  const locals: Array<Buffer> = []
  const centrals: Array<Buffer> = []
  let offset = 0
  for (const member of members) {
    const name = Buffer.from(member.name, "utf8")
    const data = deflateRawSync(member.content)
    const flags = member.encrypted === true ? 1 : 0
    const crc = crc32(member.content)
    const compressed = member.declaredCompressedSize ?? data.byteLength
    const size = member.declaredSize ?? member.content.byteLength
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(flags, 6)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(compressed, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.byteLength, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(flags, 8)
    central.writeUInt16LE(8, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(compressed, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(name.byteLength, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, data)
    centrals.push(central, name)
    offset += local.byteLength + name.byteLength + data.byteLength
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(members.length, 8)
  end.writeUInt16LE(members.length, 10)
  end.writeUInt32LE(directory.byteLength, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** A zip whose member says 1 000 bytes and inflates to `realSize` zeros. */
export const liarZip = (realSize = 8 * 1024 ** 2) => buildZip([{ name: "small.txt", content: Buffer.alloc(realSize), declaredSize: 1_000 }])

/** A zip whose member declares fewer compressed bytes than its deflated data holds. */
export const shortCompressedZip = () => {
  const content = Buffer.from("a member whose compressed size is a lie ".repeat(2_000))
  return buildZip([{ name: "cut.txt", content, declaredCompressedSize: 40 }])
}

/** The first half of a good zip: no central directory. */
export const truncatedZip = () => {
  const whole = buildZip([{ name: "whole.txt", content: Buffer.from("words that will never be read ".repeat(500)) }])
  return whole.subarray(0, Math.floor(whole.byteLength / 2))
}

export const encryptedZip = () => buildZip([{ name: "secret.txt", content: Buffer.from("secret words"), encrypted: true }])

/** Members whose names climb out of any folder they would be written to. */
export const zipSlip = () =>
  buildZip([
    { name: "../../../../tmp/evil.txt", content: Buffer.from("climbed out") },
    { name: "/etc/absolute.txt", content: Buffer.from("absolute path") },
    { name: "fine.txt", content: Buffer.from("an ordinary member") }
  ])

/** A zip in a zip in a zip, `levels` deep, with a text file at the bottom. */
export const nestedZip = (levels: number, text = "the bottom of the nest"): Buffer => {
  let zip = buildZip([{ name: "bottom.txt", content: Buffer.from(text) }])
  for (let level = 1; level < levels; level++) zip = buildZip([{ name: `level-${levels - level}.zip`, content: zip }])
  return zip
}

/** A PDF header followed by garbage, and a PDF whose cross-reference table points nowhere. */
export const malformedPdfs = () => ({
  garbage: Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4_096, 0xa7)]),
  badXref: Buffer.from(
    "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R >>\nendobj\nxref\n0 2\n0000000000 65535 f \n9999999999 00000 n \ntrailer\n<< /Root 1 0 R /Size 2 >>\nstartxref\n999999\n%%EOF\n"
  )
})

/** JSON nested `depth` arrays deep: `[[[…]]]`. */
export const deepJson = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

/** A tar whose only member's header promises `declared` bytes and holds 100. */
export const truncatedTar = (declared = 10_000) => {
  const header = Buffer.alloc(512)
  header.write("short.txt", 0, "utf8")
  header.write("0000644\0", 100, "latin1")
  header.write("0000000\0", 108, "latin1")
  header.write("0000000\0", 116, "latin1")
  header.write(`${declared.toString(8).padStart(11, "0")}\0`, 124, "latin1")
  header.write("00000000000\0", 136, "latin1")
  header.write("0", 156, "latin1")
  header.write("ustar\0", 257, "latin1")
  header.write("00", 263, "latin1")
  header.fill(" ", 148, 156)
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1")
  return Buffer.concat([header, Buffer.alloc(100, 0x61)])
}

/** The first half of a gzip stream. */
export const truncatedGzip = () => {
  const whole = gzipSync(Buffer.from("a compressed text cut in the middle ".repeat(5_000)))
  return whole.subarray(0, Math.floor(whole.byteLength / 2))
}
