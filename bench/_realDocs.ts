/**
 * Real documents for the search-scale benchmark: the HTML manuals of Debian documentation packages, downloaded with
 * `apt-get download` and unpacked with `dpkg-deb -x` into a cache outside the repository
 * (`$XDG_CACHE_HOME/quarry-bench`, else `~/.cache/quarry-bench`), and reused from there by later runs.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** Python and PostgreSQL for prose and reference pages, Rust's standard library for volume (tens of thousands of pages). */
const packages = ["python3.11-doc", "postgresql-doc-15", "rust-doc"]

export const cacheDir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "quarry-bench")
/** Where each package is unpacked, in a folder of its name. */
export const unpackedDir = path.join(cacheDir, "unpacked")

/** Files below `dir` whose names end with `extension`, sorted. */
export const filesEndingWith = (dir: string, extension: string): Array<string> =>
  fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()

/** The Debian package unpacked under the cache, downloaded first when it is not there yet. */
export const unpacked = (name: string) => {
  const target = path.join(unpackedDir, name)
  // The marker is written last, so an interrupted download or extraction is done again.
  const done = path.join(target, ".complete")
  if (fs.existsSync(done)) return target
  const debs = path.join(cacheDir, "debs")
  fs.mkdirSync(debs, { recursive: true })
  const existing = () => fs.readdirSync(debs).find((file) => file.startsWith(`${name}_`) && file.endsWith(".deb"))
  if (existing() === undefined) {
    process.stdout.write(`real documents: downloading ${name}\n`)
    // A machine whose package lists were never fetched knows no candidate.
    if (!/Candidate: (?!\(none\))/.test(execFileSync("apt-cache", ["policy", name], { encoding: "utf8" }))) {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
    }
    execFileSync("apt-get", ["download", "-qq", name], { cwd: debs, stdio: ["ignore", "ignore", "inherit"] })
  }
  fs.rmSync(target, { recursive: true, force: true })
  fs.mkdirSync(target, { recursive: true })
  execFileSync("dpkg-deb", ["-x", path.join(debs, existing()!), target])
  fs.writeFileSync(done, "")
  return target
}

/**
 * Up to `limit` HTML files of the packages, in package order (every Python and PostgreSQL page before Rust's), as
 * absolute paths in the cache.
 */
export const realDocuments = (limit: number): ReadonlyArray<string> =>
  packages.flatMap((name) => filesEndingWith(unpacked(name), ".html")).slice(0, limit)

/** The npm package unpacked under the cache (`npm pack`, then tar), fetched first when it is not there yet. */
export const unpackedNpm = (name: string) => {
  const target = path.join(unpackedDir, name.replace("/", "__"))
  const done = path.join(target, ".complete")
  if (fs.existsSync(done)) return target
  const tarballs = path.join(cacheDir, "npm")
  fs.mkdirSync(tarballs, { recursive: true })
  process.stdout.write(`real documents: downloading ${name}\n`)
  const tarball = execFileSync("npm", ["pack", "--silent", name], { cwd: tarballs, encoding: "utf8" }).trim().split("\n").at(-1)!
  fs.rmSync(target, { recursive: true, force: true })
  fs.mkdirSync(target, { recursive: true })
  execFileSync("tar", ["-xzf", path.join(tarballs, tarball), "-C", target])
  fs.writeFileSync(done, "")
  return target
}
