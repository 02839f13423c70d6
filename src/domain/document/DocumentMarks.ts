import { Effect, Option } from "effect"
import { inTransaction } from "../../db/SqlFailure.ts"
import { DocumentIndex } from "../../search/DocumentIndex.ts"
import { type ProjectCaller, requireGranted } from "../project/Access.ts"
import { legacyDate } from "../project/Project.ts"
import { DocumentNotFound } from "./DocumentErrors.ts"
import { legacyStarredDocument, type LegacyTag, type RecommendationAggregate, userFromId } from "./Marks.ts"
import { InvalidMarks, TooManyMarks } from "./DocumentMarkErrors.ts"
import { DocumentMarksRepo } from "./DocumentMarksRepo.ts"

/** Largest lists one request may carry; more answers 413. */
export const maxDocumentIds = 10_000
export const maxTags = 100
/** Tag rows one batch may write (ids × tags), so that one request cannot insert millions of rows. */
export const maxTagRows = 100_000

/** Distinct ids, each 1 to 96 characters (the width of a document id). */
export const checkIds = (ids: ReadonlyArray<string>, name = "document ids") =>
  Effect.gen(function* () {
    if (ids.length > maxDocumentIds)
      return yield* new TooManyMarks({ reason: `at most ${maxDocumentIds} ${name} per request, not ${ids.length}` })
    if (ids.some((id) => id.length === 0 || id.length > 96)) return yield* new InvalidMarks({ reason: `${name} are 1 to 96 characters` })
    return [...new Set(ids)]
  })

/** Distinct labels of 1 to 64 characters without commas (the tagged endpoint lists labels separated by commas). */
const checkTags = (tags: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (tags.length > maxTags) return yield* new TooManyMarks({ reason: `at most ${maxTags} tags per request, not ${tags.length}` })
    if (tags.some((tag) => tag.length === 0 || tag.length > 64 || tag.includes(","))) {
      return yield* new InvalidMarks({ reason: "a tag is 1 to 64 characters, without ','" })
    }
    return [...new Set(tags)]
  })

/**
 * Stars, tags and recommendations of documents, each checked against the caller's
 * projects. Tags are written to the index and to the tag rows in one transaction, so tag filters see them at once.
 */
export class DocumentMarks extends Effect.Service<DocumentMarks>()("quarry/DocumentMarks", {
  effect: Effect.gen(function* () {
    const repo = yield* DocumentMarksRepo
    const index = yield* DocumentIndex

    const star = Effect.fn("DocumentMarks.star")(function* (project: string, ids: ReadonlyArray<string>, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      return yield* repo.star(project, yield* checkIds(ids), caller.login)
    })

    const unstar = Effect.fn("DocumentMarks.unstar")(function* (project: string, ids: ReadonlyArray<string>, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      return yield* repo.unstar(project, yield* checkIds(ids), caller.login)
    })

    const starredIds = Effect.fn("DocumentMarks.starredIds")(function* (project: string, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      return yield* repo.starredIds(project, caller.login)
    })

    /** The caller's starred documents in all their projects; stars of documents gone from the index are skipped. */
    const starredDocuments = Effect.fn("DocumentMarks.starredDocuments")(function* (caller: ProjectCaller) {
      const stars = yield* repo.starsOf(caller.login, caller.grantedProjects)
      const documents = yield* Effect.forEach(stars, (star) =>
        Effect.map(
          index.get(star.project, star.docId),
          Option.map((document) => legacyStarredDocument(star.project, document))
        )
      )
      return documents.flatMap(Option.toArray)
    })

    /** With a routing other than its own id, the document must be under that root document: 404 otherwise. */
    const requireDocument = (project: string, id: string, routing: string | undefined) =>
      routing === undefined || routing === "" || routing === id
        ? Effect.void
        : Effect.flatMap(
            index.get(project, id, routing),
            Option.match({ onNone: () => Effect.fail(new DocumentNotFound({ project, id })), onSome: () => Effect.void })
          )

    /** Tags documents of the index (unknown ids are skipped); returns the number of new tag rows. */
    const tag = Effect.fn("DocumentMarks.tag")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      tags: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      const [checkedIds, labels] = [yield* checkIds(ids), yield* checkTags(tags)]
      if (checkedIds.length * labels.length > maxTagRows) {
        return yield* new TooManyMarks({ reason: `at most ${maxTagRows} tag rows (document ids × tags) per request` })
      }
      return yield* inTransaction(
        Effect.gen(function* () {
          const found = yield* index.addTags(project, checkedIds, labels)
          return found.length === 0 ? 0 : yield* repo.addTags(project, found, labels, caller.login)
        })
      )
    })

    const untag = Effect.fn("DocumentMarks.untag")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      tags: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      const [checkedIds, labels] = [yield* checkIds(ids), yield* checkTags(tags)]
      return yield* inTransaction(
        Effect.zipRight(index.removeTags(project, checkedIds, labels), repo.removeTags(project, checkedIds, labels))
      )
    })

    /** One document, which must exist: whether a tag row was added (201) or all were there (200). */
    const tagDocument = Effect.fn("DocumentMarks.tagDocument")(function* (
      project: string,
      id: string,
      routing: string | undefined,
      tags: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      yield* requireDocument(project, id, routing)
      const labels = yield* checkTags(tags)
      return yield* inTransaction(
        Effect.gen(function* () {
          const found = yield* index.addTags(project, [id], labels)
          if (found.length === 0) return yield* new DocumentNotFound({ project, id })
          return (yield* repo.addTags(project, found, labels, caller.login)) > 0
        })
      )
    })

    /** One document, which must exist: whether a tag row was removed. */
    const untagDocument = Effect.fn("DocumentMarks.untagDocument")(function* (
      project: string,
      id: string,
      routing: string | undefined,
      tags: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      yield* requireDocument(project, id, routing)
      const labels = yield* checkTags(tags)
      return yield* inTransaction(
        Effect.gen(function* () {
          const found = yield* index.removeTags(project, [id], labels)
          if (found.length === 0) return yield* new DocumentNotFound({ project, id })
          return (yield* repo.removeTags(project, found, labels)) > 0
        })
      )
    })

    const tagsOf = Effect.fn("DocumentMarks.tagsOf")(function* (project: string, id: string, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      const rows = yield* repo.tagsOf(project, id)
      return rows.map((row): LegacyTag => ({ label: row.label, creationDate: legacyDate(row.creationDate), user: userFromId(row.userId) }))
    })

    const taggedWith = Effect.fn("DocumentMarks.taggedWith")(function* (
      project: string,
      tags: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      return yield* repo.taggedWithAny(project, yield* checkTags(tags))
    })

    const recommend = Effect.fn("DocumentMarks.recommend")(function* (project: string, ids: ReadonlyArray<string>, caller: ProjectCaller) {
      yield* requireGranted(project, caller)
      return yield* repo.recommend(project, yield* checkIds(ids), caller.login)
    })

    const unrecommend = Effect.fn("DocumentMarks.unrecommend")(function* (
      project: string,
      ids: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      return yield* repo.unrecommend(project, yield* checkIds(ids), caller.login)
    })

    const recommendedBy = Effect.fn("DocumentMarks.recommendedBy")(function* (
      project: string,
      users: ReadonlyArray<string>,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      return yield* repo.recommendedBy(project, yield* checkIds(users, "user ids"))
    })

    /** Who recommended documents of the project (only `docIds` when given), with counts. */
    const recommenders = Effect.fn("DocumentMarks.recommenders")(function* (
      project: string,
      docIds: ReadonlyArray<string> | undefined,
      caller: ProjectCaller
    ) {
      yield* requireGranted(project, caller)
      const { users, totalCount } = yield* repo.recommenders(project, docIds === undefined ? undefined : yield* checkIds(docIds))
      return {
        aggregates: users.map((row) => ({
          item: { id: row.userId, name: row.name, email: row.email, provider: row.provider ?? "local", details: {} },
          count: row.count
        })),
        totalCount
      } satisfies RecommendationAggregate
    })

    return {
      star,
      unstar,
      starredIds,
      starredDocuments,
      tag,
      untag,
      tagDocument,
      untagDocument,
      tagsOf,
      taggedWith,
      recommend,
      unrecommend,
      recommendedBy,
      recommenders
    }
  })
}) {}
