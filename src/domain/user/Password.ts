import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect, Redacted } from "effect"

/** scrypt cost parameters of new hashes; stored hashes carry their own, so these can be raised later. */
const cost = { N: 16_384, r: 8, p: 1 }
const keyLength = 64
const saltLength = 16

const derive = (password: Redacted.Redacted<string>, salt: Buffer, N: number, r: number, p: number, length: number) =>
  Effect.async<Buffer>((resume) => {
    // Asynchronous on purpose: a synchronous scrypt would block every other request for tens of milliseconds.
    scrypt(Redacted.value(password), salt, length, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.die(error))
    )
  })

/** `scrypt$N$r$p$salt$hash`, salt and hash in Base64. */
export const hashPassword = (password: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const salt = randomBytes(saltLength)
    const key = yield* derive(password, salt, cost.N, cost.r, cost.p, keyLength)
    return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64")}$${key.toString("base64")}`
  })

/** Verified when the login is unknown, so that an unknown login takes as long to refuse as a wrong password. */
const decoyHash = `scrypt$${cost.N}$${cost.r}$${cost.p}$${Buffer.alloc(saltLength).toString("base64")}$${Buffer.alloc(keyLength).toString("base64")}`

const storedHash = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+=*)\$([A-Za-z0-9+/]+=*)$/

const parse = (hash: string) => {
  const match = storedHash.exec(hash)
  if (match === null) return undefined
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])]
  // Bounds keep a tampered row from making one sign-in allocate gigabytes.
  const sane = N > 1 && N <= 1 << 20 && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16
  const salt = Buffer.from(match[4]!, "base64")
  const key = Buffer.from(match[5]!, "base64")
  return sane && key.length > 0 ? { N, r, p, salt, key } : undefined
}

/** Whether `password` matches `hash` (null: the user has no password), compared in constant time. */
export const verifyPassword = (password: Redacted.Redacted<string>, hash: string | null) =>
  Effect.gen(function* () {
    const own = hash === null ? undefined : parse(hash)
    const parsed = own ?? parse(decoyHash)!
    const key = yield* derive(password, parsed.salt, parsed.N, parsed.r, parsed.p, parsed.key.length)
    return own !== undefined && timingSafeEqual(key, parsed.key)
  })
