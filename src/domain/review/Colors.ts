/** The three shades of a task colour the front end draws with: HLS lightness × 0.75, × 1, × 1.25 (capped at 1). */

const toHls = (red: number, green: number, blue: number) => {
  const max = Math.max(red, green, blue)
  const min = Math.min(red, green, blue)
  const lightness = (max + min) / 2
  if (max === min) return { hue: 0, lightness, saturation: 0 }
  const range = max - min
  const saturation = lightness <= 0.5 ? range / (max + min) : range / (2 - max - min)
  const rc = (max - red) / range
  const gc = (max - green) / range
  const bc = (max - blue) / range
  const hue = red === max ? bc - gc : green === max ? 2 + rc - bc : 4 + gc - rc
  return { hue: (((hue / 6) % 1) + 1) % 1, lightness, saturation }
}

const channel = (m1: number, m2: number, hue: number) => {
  const h = ((hue % 1) + 1) % 1
  if (h < 1 / 6) return m1 + (m2 - m1) * h * 6
  if (h < 0.5) return m2
  if (h < 2 / 3) return m1 + (m2 - m1) * (2 / 3 - h) * 6
  return m1
}

const fromHls = (hue: number, lightness: number, saturation: number): [number, number, number] => {
  if (saturation === 0) return [lightness, lightness, lightness]
  const m2 = lightness <= 0.5 ? lightness * (1 + saturation) : lightness + saturation - lightness * saturation
  const m1 = 2 * lightness - m2
  return [channel(m1, m2, hue + 1 / 3), channel(m1, m2, hue), channel(m1, m2, hue - 1 / 3)]
}

const hex = (value: number) =>
  Math.round(value * 255)
    .toString(16)
    .padStart(2, "0")

export const taskColors = (color: string): ReadonlyArray<string> => {
  const match = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color.trim())
  if (match === null) return [color, color, color]
  const [red, green, blue] = [match[1]!, match[2]!, match[3]!].map((part) => parseInt(part, 16) / 255) as [number, number, number]
  const { hue, lightness, saturation } = toHls(red, green, blue)
  return [0.75, 1, 1.25].map(
    (factor) =>
      `#${fromHls(hue, Math.min(1, lightness * factor), saturation)
        .map(hex)
        .join("")}`
  )
}
