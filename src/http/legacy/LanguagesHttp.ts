import { Effect, Schema } from "effect"
import { languages, languageView, LanguageViewSchema, tesseractLanguages } from "../../extract/Languages.ts"
import { json } from "../../transport/Http.ts"
import { route } from "../Router.ts"

const LanguagesSchema = Schema.Array(LanguageViewSchema)

// The table never changes while the process runs, so its JSON is built once.
const textLanguages = json(languages.map(languageView))

export const languagesRoutes = [
  route(
    "GET",
    "/api/settings/ocr/languages",
    Effect.map(tesseractLanguages(), (found) => json(found.map(languageView))),
    {
      summary: "Languages the OCR engine (Tesseract) has trained data for; 503 when it is not installed",
      tag: "settings",
      response: LanguagesSchema
    }
  ),
  route("GET", "/api/settings/text/languages", Effect.succeed(textLanguages), {
    summary: "Every language the text extractor knows",
    tag: "settings",
    response: LanguagesSchema
  })
]
