export { answerChallenge, CHALLENGE_EVENT_TYPE, isChallenge } from "./challenge.js";
export type { ChallengeAnswer, ChallengeEvent } from "./challenge.js";
export { checkReceiver, DEFAULT_CHECK_TIMEOUT_MS } from "./check-receiver.js";
export type {
  CheckCase,
  CheckCaseId,
  CheckExchange,
  CheckExpectation,
  CheckReceiverOptions,
  CheckReport,
  CheckVerdict,
} from "./check-receiver-types.js";
export { isWebhookVerificationError, VERIFY_FAILURES, WebhookVerificationError } from "./errors.js";
export type { VerifyFailure } from "./errors.js";
export { WEBHOOK_HEADERS } from "./headers.js";
export type { HeadersInput, SignedHeaders } from "./headers.js";
export { createReceiver } from "./receiver.js";
export type {
  Delivery,
  ExpectOptions,
  Receiver,
  ReceiverEventName,
  ReceiverOptions,
  ReceiverReply,
  RespondFunction,
  WebhookEvent,
} from "./receiver-types.js";
export { generateSecret, SECRET_BYTES } from "./secret.js";
export { isSampleEventType, SAMPLE_EVENT_TYPES, sampleEventData } from "./sample-events.js";
export type { SampleEventType } from "./sample-events.js";
export { sign } from "./sign.js";
export type { SignInput } from "./sign.js";
export { DEFAULT_TOLERANCE_SECONDS, verify, verifyOrThrow } from "./verify.js";
export type { VerifyFailed, VerifyOptions, VerifyResult, VerifySuccess } from "./verify.js";
