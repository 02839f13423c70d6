/** A review task checked by the LOCAL user, created through the review API as a staff member would. */

const jsonApi = "application/vnd.api+json"

type Relations = Readonly<Record<string, readonly [string, string | ReadonlyArray<string>]>>

const create = async (
  base: string,
  path: string,
  type: string,
  attributes: Readonly<Record<string, unknown>>,
  relations: Relations = {}
) => {
  const relationships = Object.fromEntries(
    Object.entries(relations).map(([name, [relatedType, id]]) => [
      name,
      { data: Array.isArray(id) ? id.map((one) => ({ type: relatedType, id: one })) : { type: relatedType, id } }
    ])
  )
  const response = await fetch(`${base}/api/v1/${path}/`, {
    method: "POST",
    headers: { "content-type": jsonApi },
    body: JSON.stringify({ data: { type, attributes, relationships } })
  })
  const body = (await response.json()) as { data: { id: string } }
  if (response.status !== 201) return Promise.reject(new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(body)}`))
  return body.data.id
}

export interface ReviewFixture {
  readonly task: string
  readonly choices: { readonly correct: string; readonly wrong: string }
  readonly reviews: ReadonlyArray<string>
}

export const createReviewFixture = async (base: string): Promise<ReviewFixture> => {
  const me = (await (await fetch(`${base}/api/v1/users/me/`)).json()) as { data: { id: string } }
  const project = await create(base, "projects", "Project", { name: "Addresses" })
  const group = await create(base, "choice-groups", "ChoiceGroup", { name: "Correctness" })
  const correct = await create(
    base,
    "choices",
    "Choice",
    { name: "Correct", value: "correct", shortkeys: "c" },
    { choiceGroup: ["ChoiceGroup", group] }
  )
  const wrong = await create(
    base,
    "choices",
    "Choice",
    { name: "Wrong", value: "wrong", shortkeys: "w" },
    { choiceGroup: ["ChoiceGroup", group] }
  )
  const task = await create(
    base,
    "tasks",
    "Task",
    { name: "Company addresses", description: "Check the registered addresses" },
    { project: ["Project", project], choiceGroup: ["ChoiceGroup", group], checkers: ["User", [me.data.id]] }
  )
  const reviews: Array<string> = []
  for (const uid of ["a", "b", "c"]) {
    const record = await create(
      base,
      "task-records",
      "TaskRecord",
      { uid, originalValue: `${uid} Harbour Street`, predictedValue: `${uid.toUpperCase()} HARBOUR ST` },
      { task: ["Task", task] }
    )
    reviews.push(
      await create(
        base,
        "task-record-reviews",
        "TaskRecordReview",
        {},
        { taskRecord: ["TaskRecord", record], checker: ["User", me.data.id] }
      )
    )
  }
  return { task, choices: { correct, wrong }, reviews }
}
