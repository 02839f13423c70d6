import type { Registry } from "./Resource.ts"
import { actionAggregateDefinition, actionDefinition, userNotificationDefinition } from "./Activity.ts"
import { alternativeValueDefinition, choiceDefinition, choiceGroupDefinition, projectDefinition } from "./Content.ts"
import { taskRecordDefinition, taskRecordMediaDefinition } from "./Records.ts"
import { reviewDefinition, reviewHistoryDefinition } from "./Reviews.ts"
import { taskUserChoiceStatisticsDefinition, taskUserStatisticsDefinition } from "./Statistics.ts"
import { taskDefinition, templateSettingDefinition } from "./Tasks.ts"
import { tipDefinition } from "./Tips.ts"
import { userDefinition } from "./Users.ts"

/** Every resource definition by key, for include walking. */
export const registry: Registry = {
  User: userDefinition,
  Project: projectDefinition,
  ChoiceGroup: choiceGroupDefinition,
  Choice: choiceDefinition,
  AlternativeValue: alternativeValueDefinition,
  Task: taskDefinition,
  TaskTemplateSetting: templateSettingDefinition,
  TaskRecord: taskRecordDefinition,
  TaskRecordMedia: taskRecordMediaDefinition,
  TaskRecordReview: reviewDefinition,
  TaskRecordReviewHistory: reviewHistoryDefinition,
  Tip: tipDefinition,
  TaskUserStatistics: taskUserStatisticsDefinition,
  TaskChoiceStatistics: taskUserChoiceStatisticsDefinition,
  Action: actionDefinition,
  ActionAggregate: actionAggregateDefinition,
  UserNotification: userNotificationDefinition
}
