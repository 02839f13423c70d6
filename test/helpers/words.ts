/** `n` in the letters a to z, least significant first: a distinct word of letters alone for each number. */
const lettersOf = (n: number): string => String.fromCharCode(97 + (n % 26)) + (n >= 26 ? lettersOf(Math.floor(n / 26) - 1) : "")

/** `count` distinct words of letters, each starting with `prefix`. */
export const distinctWords = (count: number, prefix: string): ReadonlyArray<string> =>
  Array.from({ length: count }, (_, n) => `${prefix}${lettersOf(n)}`)
