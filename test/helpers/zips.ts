import { BlobReader, configure, Uint8ArrayWriter, ZipReader } from "@zip.js/zip.js"
import { Effect } from "effect"

configure({ useWebWorkers: false })

export interface ZipEntry {
  readonly name: string
  readonly size: number
  readonly encrypted: boolean
  readonly bytes: Buffer
}

/** Every file entry of a zip, its bytes read back (decrypted with `password` when given); fails on a wrong one. */
export const readZip = (zip: Uint8Array, password?: string) =>
  Effect.tryPromise(async () => {
    const reader = new ZipReader(new BlobReader(new Blob([zip])))
    const entries = await reader.getEntries()
    const read: Array<ZipEntry> = []
    for (const entry of entries) {
      if (entry.directory) continue
      const bytes = await entry.getData(new Uint8ArrayWriter(), password === undefined ? {} : { password })
      read.push({ name: entry.filename, size: entry.uncompressedSize, encrypted: entry.encrypted, bytes: Buffer.from(bytes) })
    }
    await reader.close()
    return read
  })
