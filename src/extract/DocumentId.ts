import { createHash } from "node:crypto"

/**
 * Document ids of the reference (ICIJ extract's DigestIdentifier): lowercase hex
 * SHA-384. Strings are hashed as UTF-8, as the JVM's default charset does on the reference's servers.
 */

/** Id of a file on disk: the project name's bytes immediately followed by the file's bytes. */
export const documentId = (project: string, bytes: Uint8Array): string =>
  createHash("sha384").update(project, "utf8").update(bytes).digest("hex")

/** Id of a Duplicate record: the file's bytes alone, so it is the same in every project. */
export const duplicateId = (bytes: Uint8Array): string => createHash("sha384").update(bytes).digest("hex")

export interface EmbeddedIdParts {
  /** The embedded content's own digest, computed as a file's id (project name + bytes). */
  readonly digest: string
  readonly parentId: string
  readonly relationshipId?: string | undefined
  readonly resourceName?: string | undefined
}

/**
 * Id of an embedded document. Identical attachments of different parents, or under different names in one
 * parent, must not collide, hence the parent id and the names after the content digest.
 */
export const embeddedDocumentId = (parts: EmbeddedIdParts): string => {
  const hash = createHash("sha384").update(parts.digest, "utf8").update(parts.parentId, "utf8")
  if (parts.relationshipId !== undefined) hash.update(parts.relationshipId, "utf8")
  if (parts.resourceName !== undefined) hash.update(parts.resourceName, "utf8")
  return hash.digest("hex")
}

/** Both digests of a content fed in chunks, so a large file is hashed in one streaming pass. */
export const contentDigests = (project: string) => {
  const withProject = createHash("sha384").update(project, "utf8")
  const bytesOnly = createHash("sha384")
  return {
    update: (chunk: Uint8Array) => {
      withProject.update(chunk)
      bytesOnly.update(chunk)
    },
    finish: () => ({ digest: withProject.digest("hex"), duplicateId: bytesOnly.digest("hex") })
  }
}
