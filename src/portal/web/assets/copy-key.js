// Shown with a newly created or rotated key: the copy button, and a hand-off of the key to the
// explorer through sessionStorage (this tab only, never sent to the server by us).
const EXPLORER_KEY = "threadsight.explorer-key";

const input = document.getElementById("new-key-secret");
const button = document.getElementById("copy-key");
const status = document.getElementById("copy-status");

if (input instanceof HTMLInputElement) {
  try {
    sessionStorage.setItem(EXPLORER_KEY, input.value);
  } catch {
    // Storage disabled: the explorer field simply starts empty.
  }
}

if (button !== null && input instanceof HTMLInputElement && status !== null) {
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Copied to the clipboard.";
    } catch {
      // Clipboard API refused (permissions, insecure context): select the text for Ctrl+C.
      input.focus();
      input.select();
      status.textContent = "Selected: press Ctrl+C (or Cmd+C) to copy.";
    }
  });
}
