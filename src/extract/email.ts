import { Effect } from "effect"
import type { Address, Email } from "postal-mime"
import type { Parser } from "./Document.ts"
import { failedTo } from "./ExtractErrors.ts"
import { htmlToText } from "./html.ts"
import { isoDate } from "./Metadata.ts"
import { bytesSource, readAll } from "./Source.ts"
import { lazyModule } from "../LazyModule.ts"

const formatAddress = (address: Address): string =>
  address.group !== undefined
    ? `${address.name}: ${address.group.map(formatAddress).join(", ")}`
    : address.name === ""
      ? address.address
      : `${address.name} <${address.address}>`

const formatAddresses = (addresses: ReadonlyArray<Address> | undefined) =>
  addresses === undefined || addresses.length === 0 ? undefined : addresses.map(formatAddress).join(", ")

// Raw header values are kept as Tika does (`Message:Raw-Header:<name>`), but not unbounded ones.
const maxHeaderLength = 8192

/** Tika's names for a message's headers (RFC822Parser), which the reference indexes and searches by default. */
const emailMetadata = (email: Email) => {
  const metadata: Record<string, string> = {}
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined && value.trim() !== "") metadata[name] = value.trim()
  }
  for (const header of email.headers) {
    const name = `Message:Raw-Header:${header.originalKey}`
    if (metadata[name] === undefined && header.value.length <= maxHeaderLength) set(name, header.value)
  }
  const from = email.from === undefined ? undefined : formatAddress(email.from)
  set("Message-From", from)
  set("Message-From-Email", email.from?.address)
  set("Message-From-Name", email.from?.name)
  set("dc:creator", from)
  set("Message-To", formatAddresses(email.to))
  set("Message-Cc", formatAddresses(email.cc))
  set("Message-Bcc", formatAddresses(email.bcc))
  set("dc:title", email.subject)
  set("subject", email.subject)
  set("dcterms:created", isoDate(email.date))
  return metadata
}

const attachmentBytes = (content: ArrayBuffer | Uint8Array | string) =>
  typeof content === "string" ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content)

/** postal-mime loads with the first email, not at the start of every process that imports the extractor. */
const loadPostalMime = lazyModule(() => import("postal-mime"))

/**
 * An email (RFC 822 / .eml): its body is the content (the text part, else the HTML part as text), its
 * headers the metadata, and each attachment an embedded document.
 */
export const extractEmail: Parser = (source, context) =>
  Effect.gen(function* () {
    const bytes = yield* readAll(source, context.limits.maxFileBytes)
    const { default: PostalMime } = yield* loadPostalMime
    const email = yield* Effect.tryPromise({
      try: () => PostalMime.parse(bytes, { attachmentEncoding: "arraybuffer" }),
      catch: failedTo("unreadable email")
    })
    const text = email.text ?? (email.html === undefined ? "" : yield* htmlToText(email.html))
    for (const attachment of email.attachments) {
      yield* context.embed({ source: bytesSource(attachmentBytes(attachment.content)), name: attachment.filename ?? undefined })
    }
    return { text, metadata: emailMetadata(email) }
  })
