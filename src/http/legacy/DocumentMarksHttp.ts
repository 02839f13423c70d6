import { Effect, Schema } from "effect"
import { InvalidMarks } from "../../domain/document/DocumentMarkErrors.ts"
import { DocumentMarks, maxDocumentIds, maxTagRows, maxTags } from "../../domain/document/DocumentMarks.ts"
import { ChangedRows, LegacyTag, RecommendationAggregate } from "../../domain/document/Marks.ts"
import { allowMethods, empty, json, jsonBody, pathParam, queryParam } from "../../transport/Http.ts"
import { publicRoute, route } from "../Router.ts"
import { projectCaller } from "../../domain/project/Access.ts"

const tag = "document marks"
const DocumentIds = Schema.Array(Schema.String).annotations({ identifier: "DocumentIds" })
const Labels = Schema.Array(Schema.String).annotations({ identifier: "TagLabels" })
const TagUpdate = Schema.Struct({ docIds: DocumentIds, tags: Labels }).annotations({ identifier: "TagUpdate" })
const limits = `at most ${maxDocumentIds} ids and ${maxTags} tags per request (413 beyond); 400 for a body of the wrong shape or an empty or too long item`
const access = "403 when the project is not one of the caller's"
const projectParam = pathParam("project")

/** A comma-separated query parameter; 400 when it is absent or lists nothing. */
const listParam = (name: string) =>
  Effect.gen(function* () {
    const items = ((yield* queryParam(name)) ?? "").split(",").filter((item) => item !== "")
    if (items.length === 0) return yield* new InvalidMarks({ reason: `${name} is required (comma-separated)` })
    return items
  })

const requiredParam = (name: string) =>
  Effect.gen(function* () {
    const value = yield* queryParam(name)
    if (value === undefined || value === "") return yield* new InvalidMarks({ reason: `${name} is required` })
    return value
  })

/** POST /api/:project/documents/batchUpdate/<action> with a JSON array of ids, answering `{result}`. */
const countingRoute = (action: "star" | "unstar" | "recommend" | "unrecommend", summary: string) =>
  route(
    "POST",
    `/api/:project/documents/batchUpdate/${action}`,
    Effect.gen(function* () {
      const ids = yield* jsonBody(DocumentIds)
      const marks = yield* DocumentMarks
      return json({ result: yield* marks[action](yield* projectParam, ids, yield* projectCaller) })
    }),
    {
      summary: `${summary}; result = rows actually changed (repeating a call is not an error); ${limits}; ${access}`,
      tag,
      requestBody: DocumentIds,
      response: ChangedRows
    }
  )

/** PUT /api/:project/documents/<action>/:docId with a JSON array of labels: 201 when a row changed, else 200. */
const singleTagRoutes = (action: "tags" | "untag", summary: string) => {
  const path = `/api/:project/documents/${action}/:docId`
  return [
    publicRoute("OPTIONS", path, Effect.succeed(allowMethods("OPTIONS, PUT")), { summary: `Methods allowed on ${path}`, tag }),
    route(
      "PUT",
      path,
      Effect.gen(function* () {
        const labels = yield* jsonBody(Labels)
        const marks = yield* DocumentMarks
        const [project, id, routing, caller] = [
          yield* projectParam,
          yield* pathParam("docId"),
          yield* queryParam("routing"),
          yield* projectCaller
        ]
        const changed =
          action === "tags"
            ? yield* marks.tagDocument(project, id, routing, labels, caller)
            : yield* marks.untagDocument(project, id, routing, labels, caller)
        return empty(changed ? 201 : 200)
      }),
      {
        summary: `${summary}; 404 for a document not in the index; ${limits}; ${access}`,
        tag,
        query: { routing: "id of the root document (embedded documents)" },
        requestBody: Labels
      }
    )
  ]
}

const starredInProject = Effect.gen(function* () {
  return json(yield* (yield* DocumentMarks).starredIds(yield* projectParam, yield* projectCaller))
})

const starredEverywhere = Effect.gen(function* () {
  return json(yield* (yield* DocumentMarks).starredDocuments(yield* projectCaller))
})

/** `:projects` names one project, as in the reference (a comma-separated list is taken as one id). */
const tagged = Effect.gen(function* () {
  const tags = (yield* pathParam("comaSeparatedTags")).split(",").filter((label) => label !== "")
  return json(yield* (yield* DocumentMarks).taggedWith(yield* pathParam("projects"), tags, yield* projectCaller))
})

const tagsOfDocument = Effect.gen(function* () {
  return json(yield* (yield* DocumentMarks).tagsOf(yield* projectParam, yield* pathParam("docId"), yield* projectCaller))
})

const batchTag = (action: "tag" | "untag") =>
  Effect.gen(function* () {
    const body = yield* jsonBody(TagUpdate)
    yield* (yield* DocumentMarks)[action](yield* projectParam, body.docIds, body.tags, yield* projectCaller)
    return empty()
  })

const recommendedBy = Effect.gen(function* () {
  return json(yield* (yield* DocumentMarks).recommendedBy(yield* projectParam, yield* listParam("userids"), yield* projectCaller))
})

const recommenders = (restrictToDocuments: boolean) =>
  Effect.gen(function* () {
    const projectId = yield* requiredParam("project")
    const docIds = restrictToDocuments ? yield* listParam("docIds") : undefined
    return json(yield* (yield* DocumentMarks).recommenders(projectId, docIds, yield* projectCaller))
  })

export const documentMarksRoutes = [
  countingRoute("star", "Stars documents for the caller"),
  countingRoute("unstar", "Unstars documents for the caller; unknown ids are not counted"),
  countingRoute("recommend", "Marks documents as read (recommended) by the caller"),
  countingRoute("unrecommend", "Removes the caller's read marks"),
  route("GET", "/api/:project/documents/starred", starredInProject, {
    summary: `Ids of the documents the caller starred in the project; ${access}`,
    tag,
    response: DocumentIds
  }),
  route("GET", "/api/documents/starred", starredEverywhere, {
    summary: "The documents the caller starred in all their projects (documents still in the index)",
    tag
  }),
  route("GET", "/api/:projects/documents/tagged/:comaSeparatedTags", tagged, {
    summary: `Ids of the documents of one project having any of the tags; ${access}`,
    tag,
    response: DocumentIds
  }),
  ...singleTagRoutes("tags", "Tags one document: 201 when a tag was added, 200 when it had them all"),
  route("GET", "/api/:project/documents/tags/:docId", tagsOfDocument, {
    summary: `The tags of a document; ${access}`,
    tag,
    response: Schema.Array(LegacyTag)
  }),
  ...singleTagRoutes("untag", "Removes tags from one document: 201 when a tag was removed, 200 when it had none of them"),
  route("POST", "/api/:project/documents/batchUpdate/tag", batchTag("tag"), {
    summary: `Tags documents of the index (unknown ids are skipped); 200; ${limits}; at most ${maxTagRows} ids × tags (413 beyond); ${access}`,
    tag,
    requestBody: TagUpdate
  }),
  route("POST", "/api/:project/documents/batchUpdate/untag", batchTag("untag"), {
    summary: `Removes tags from documents; 200; ${limits}; ${access}`,
    tag,
    requestBody: TagUpdate
  }),
  route("GET", "/api/:project/documents/recommendations", recommendedBy, {
    summary: `Ids of the documents those users recommended; 400 without userids; ${access}`,
    tag,
    query: { userids: "comma-separated user ids" },
    response: DocumentIds
  }),
  route("GET", "/api/users/recommendations", recommenders(false), {
    summary: `Who recommended documents of the project, with counts; 400 without project; ${access}`,
    tag,
    query: { project: "project id" },
    response: RecommendationAggregate
  }),
  route("GET", "/api/users/recommendationsby", recommenders(true), {
    summary: `Who recommended these documents of the project, with counts; 400 without project or docIds; ${access}`,
    tag,
    query: { project: "project id", docIds: "comma-separated document ids" },
    response: RecommendationAggregate
  })
]
