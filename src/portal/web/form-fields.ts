/**
 * Form controls with their accessibility wiring done once: every control has a <label for>, an
 * error is rendered next to its field and linked with aria-describedby + aria-invalid, and every
 * POST form carries the CSRF token.
 */
import { CSRF_FIELD } from "./csrf.js";
import type { SafeHtml } from "./html.js";
import { html } from "./html.js";

/** One labelled input. */
export interface FieldSpec {
  id: string;
  name: string;
  label: string;
  type?: "text" | "email" | "password" | "number";
  value?: string;
  /** Message shown next to the field; marks it invalid. */
  error?: string | undefined;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
}

/**
 * A labelled input with hint and error wired to it. A field with an error takes the focus
 * (autofocus), so keyboard and screen-reader users land on the field and hear its message.
 */
export function field(f: FieldSpec): SafeHtml {
  const describedBy = [f.hint !== undefined ? `${f.id}-hint` : "", f.error !== undefined ? `${f.id}-error` : ""]
    .filter(Boolean)
    .join(" ");
  return html`<div class="field${f.error !== undefined ? " has-error" : ""}">
  <label for="${f.id}">${f.label}</label>
  ${f.hint !== undefined && html`<p class="hint" id="${f.id}-hint">${f.hint}</p>`}
  <input id="${f.id}" name="${f.name}" type="${f.type ?? "text"}"${f.value !== undefined && f.type !== "password" ? html` value="${f.value}"` : ""}${
    f.autocomplete !== undefined ? html` autocomplete="${f.autocomplete}"` : ""
  }${f.required === true ? html` required` : ""}${f.minLength !== undefined ? html` minlength="${f.minLength}"` : ""}${
    f.maxLength !== undefined ? html` maxlength="${f.maxLength}"` : ""
  }${describedBy !== "" ? html` aria-describedby="${describedBy}"` : ""}${f.error !== undefined ? html` aria-invalid="true" autofocus` : ""}>
  ${f.error !== undefined && html`<p class="field-error" id="${f.id}-error">${f.error}</p>`}
</div>`;
}

/** The hidden CSRF input. */
export function csrfInput(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** A form-level message (not tied to one field), announced to screen readers. */
export function formAlert(message: string | undefined): SafeHtml {
  return message === undefined ? html`` : html`<p class="alert" role="alert">${message}</p>`;
}

/**
 * The list of every field error above a form, each linking to its field, so all problems are
 * visible (and announced) together rather than one per submit. Nothing when there are none.
 */
export function errorSummary(
  errors: Readonly<Record<string, string>> | undefined,
  fieldIds: Readonly<Record<string, string>>,
): SafeHtml {
  const entries = Object.entries(errors ?? {});
  if (entries.length === 0) return html``;
  const items = entries.map(([name, message]) => html`<li><a href="#${fieldIds[name] ?? name}">${message}</a></li>`);
  return html`<div class="alert error-summary" role="alert"><p>${entries.length === 1 ? "Please fix this:" : `Please fix these ${entries.length} problems:`}</p><ul>${items}</ul></div>`;
}
