import type { Annotation, NerPipeline } from "./Pipeline.ts"

/** Characters allowed in the local part of an address (RFC 5322 atext), lower-case letters only, as in the reference. */
const atom = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+"
/** One DNS label: letters, digits and inner hyphens. */
const label = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"

/**
 * A dot-separated local part, `@`, and a domain of at least two labels ending in a letter label. The lookbehind
 * and lookahead keep an address from starting or ending inside a longer run of address characters, so that
 * `x@y.com.` yields `x@y.com` and `Bob@x.org` (upper case) yields nothing rather than `ob@x.org`.
 */
const address = new RegExp(
  `(?<![a-zA-Z0-9!#$%&'*+/=?^_\`{|}~.-])${atom}(?:\\.${atom})*@(?:${label}\\.)+[a-z]{2,63}(?![a-zA-Z0-9@_-]|\\.[a-zA-Z0-9])`,
  "g"
)

/** Metadata of an e-mail message holding addresses: sender, recipients and reply addresses. */
const addressHeader = /^tika_metadata_message_(from|to|cc|bcc|from_email|raw_header_(reply_to|sender|delivered_to|return_path))$/

const findAddresses = (text: string): ReadonlyArray<Annotation> => {
  const found: Array<Annotation> = []
  for (const match of text.matchAll(address)) found.push({ mention: match[0], category: "EMAIL", offset: match.index })
  return found
}

/**
 * E-mail addresses: no model, only lower-case ASCII addresses are matched. In e-mail
 * messages the address headers are read too; their addresses are at offset -1.
 */
export const emailPipeline: NerPipeline = {
  name: "EMAIL",
  supports: () => true,
  chunkLength: 1_048_576,
  // A regular expression: a megabyte takes milliseconds.
  maxRequestLength: 1_048_576,
  // A few milliseconds for a findNames batch of 200 documents, where a worker thread takes seconds to start.
  onWorkers: false,
  findAnnotations: findAddresses,
  findInMetadata: (document) =>
    document.contentType !== "message/rfc822"
      ? []
      : Object.entries(document.metadata)
          .filter(([key]) => addressHeader.test(key))
          .flatMap(([, value]) => findAddresses(value).map((annotation) => ({ ...annotation, offset: -1 })))
}
