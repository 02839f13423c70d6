/** Prints the closing line every benchmark ends with. */
export const report = (name: string, figures: Readonly<Record<string, unknown>>) => {
  process.stdout.write(`BENCH ${name} ${JSON.stringify(figures)}\n`)
}
