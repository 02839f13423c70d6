import { Layer } from "effect"
import { SleepJobLive } from "./SleepJob.ts"

/** Every job kind this process runs; adding a kind is one file in this folder and one entry here. */
export const jobKindsLayer = Layer.mergeAll(SleepJobLive)
