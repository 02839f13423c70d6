import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class UserNotFound extends Schema.TaggedError<UserNotFound>()(
  "UserNotFound",
  { login: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `user ${this.login} not found`
  }
}

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()(
  "ApiKeyNotFound",
  { login: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  override get message() {
    return `user ${this.login} has no API key`
  }
}

/** A user that cannot be stored as given (empty login, login with ':', empty password…). */
export class InvalidUser extends Schema.TaggedError<InvalidUser>()(
  "InvalidUser",
  { reason: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {
  override get message() {
    return this.reason
  }
}
