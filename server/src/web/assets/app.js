// kino's web application: the little the pages do with script. Everything works without it.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // Copy buttons next to secrets shown once.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", async () => {
      const field = document.getElementById(button.dataset.copy);
      if (!field) return;
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
      } catch (_) {
        document.execCommand("copy");
      }
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    });
  }
  // Pages waiting for work (deliveries on their way, clips being rendered) reload themselves.
  if (document.querySelector("[data-refresh]")) {
    setTimeout(() => window.location.reload(), 2000);
  }
});
