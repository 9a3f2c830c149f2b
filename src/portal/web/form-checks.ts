/**
 * Every field error of the sign-up and sign-in forms at once. The service stops at the first
 * rule broken; when it refuses a form as invalid, the page runs the same rules over every field
 * so the visitor fixes them all in one go instead of one per submit.
 */
import { checkEmail, checkName, checkNewPassword } from "../account-rules.js";
import { PortalError } from "../portal-service.js";

/** Field name -> message. */
export type FieldErrors = Record<string, string>;

function collect(errors: FieldErrors, check: () => void): void {
  try {
    check();
  } catch (err) {
    if (!(err instanceof PortalError) || err.failure.kind !== "invalid") throw err;
    errors[err.failure.field] ??= err.failure.message;
  }
}

/** All rule violations of a sign-up form (empty when the rules pass). */
export function signUpErrors(input: { email: string; name: string; password: string }): FieldErrors {
  const errors: FieldErrors = {};
  collect(errors, () => checkName(input.name));
  collect(errors, () => checkEmail(input.email));
  // The password rule compares with the email; a broken email still leaves the length rules.
  const email = input.email.trim().toLowerCase();
  collect(errors, () => checkNewPassword(input.password, email));
  return errors;
}

/** The sign-in form's required fields (the rest is the service's answer). */
export function signInErrors(input: { email: string; password: string }): FieldErrors {
  const errors: FieldErrors = {};
  if (input.email.trim() === "") errors.email = "email is required";
  if (input.password === "") errors.password = "password is required";
  return errors;
}
