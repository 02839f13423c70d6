/** The progress figures a task shows (as percentages), from its review counts per round. */

export interface RoundCounts {
  readonly round: number
  readonly total: number
  readonly done: number
  readonly mine: number
  readonly mineDone: number
}

const percent = (done: number, total: number, whenEmpty: number) => (total === 0 ? whenEmpty : (done / total) * 100)

export const taskProgress = (rounds: number, counts: ReadonlyArray<RoundCounts>) => {
  const sum = (pick: (row: RoundCounts) => number) => counts.reduce((total, row) => total + pick(row), 0)
  const byRound = (done: (row: RoundCounts) => number, total: (row: RoundCounts) => number) =>
    Object.fromEntries(
      Array.from({ length: rounds }, (_, index) => {
        const row = counts.find((candidate) => candidate.round === index + 1)
        return [String(index + 1), row === undefined ? 0 : percent(done(row), total(row), 0)]
      })
    )
  return {
    progress: percent(
      sum((row) => row.done),
      sum((row) => row.total),
      100
    ),
    progressByRound: byRound(
      (row) => row.done,
      (row) => row.total
    ),
    userTaskRecordsCount: sum((row) => row.mine),
    userTaskRecordsDoneCount: sum((row) => row.mineDone),
    userProgress: percent(
      sum((row) => row.mineDone),
      sum((row) => row.mine),
      100
    ),
    userProgressByRound: byRound(
      (row) => row.mineDone,
      (row) => row.mine
    )
  }
}
