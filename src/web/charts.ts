import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip
} from "chart.js"
import { h, uniqueId } from "./dom.ts"

// Only the parts of Chart.js these charts use are registered, which keeps the page's bundle small.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip)

export interface Series {
  readonly label: string
  readonly values: ReadonlyArray<number>
  readonly color: string
}

export interface ChartSpec {
  readonly title: string
  readonly kind: "bar" | "line"
  /** The x axis: one label per column of the table. */
  readonly labels: ReadonlyArray<string>
  readonly series: ReadonlyArray<Series>
  /** One sentence for people who do not see the chart; also the canvas's accessible name. */
  readonly summary: string
  readonly stacked?: boolean
}

/**
 * A chart with its text alternatives: the canvas is an image named by the summary, and the same numbers are in a
 * table under it (folded, so that the chart stays in view). `update` redraws it with new numbers, for live charts.
 */
export const chartFigure = (spec: ChartSpec) => {
  const captionId = uniqueId("chart")
  const canvas = h("canvas", { role: "img" })
  const summary = h("p", { class: "chart-summary" })
  const table = h("table", {})
  const figure = h(
    "figure",
    { class: "chart card", "aria-labelledby": captionId },
    h("figcaption", { id: captionId }, spec.title),
    summary,
    h("div", { class: "chart-box" }, canvas),
    h("details", {}, h("summary", {}, "The numbers as a table"), h("div", { class: "table-wrap" }, table))
  )
  const chart = new Chart<"bar" | "line", Array<number>, string>(canvas, {
    type: spec.kind,
    data: { labels: [], datasets: [] },
    options: {
      // The box's CSS height sets the chart's size, so that it fits a narrow screen too.
      maintainAspectRatio: false,
      animation: false,
      scales: { x: { stacked: spec.stacked === true }, y: { stacked: spec.stacked === true, beginAtZero: true, ticks: { precision: 0 } } }
    }
  })
  const update = (next: ChartSpec) => {
    canvas.setAttribute("aria-label", `${next.title}. ${next.summary}`)
    summary.textContent = next.summary
    table.replaceChildren(
      h("caption", { class: "visually-hidden" }, next.title),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), ...next.series.map((series) => h("th", { scope: "col" }, series.label)))),
      h(
        "tbody",
        {},
        ...next.labels.map((label, index) =>
          h("tr", {}, h("th", { scope: "row" }, label), ...next.series.map((series) => h("td", {}, series.values[index] ?? 0)))
        )
      )
    )
    chart.data.labels = [...next.labels]
    chart.data.datasets = next.series.map((series) => ({
      label: series.label,
      data: [...series.values],
      backgroundColor: series.color,
      borderColor: series.color
    }))
    chart.update()
  }
  update(spec)
  return { figure, update }
}
