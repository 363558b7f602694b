// flag-server console: small enhancements over pages that work without JavaScript.
// - the targeting rule is checked by the server's own validator as you type;
// - the rollout form shows whether the percentages add up to 100;
// - the new-flag form proposes variants of the chosen type.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const variants = document.querySelector("textarea[data-examples]");
  const type = document.getElementById("type");
  if (variants && type) {
    const examples = JSON.parse(variants.dataset.examples);
    const status = document.getElementById("variants-status");
    let previous = type.value;
    type.addEventListener("change", () => {
      // Variants still as proposed for the previous type are replaced by the new type's
      // example; variants the user wrote are kept, with a word that they must match the type.
      const untouched = variants.value.trim() === "" || variants.value.trim() === examples[previous];
      if (untouched && examples[type.value] !== undefined) {
        variants.value = examples[type.value];
        status.textContent = "";
        status.className = "status";
      } else if (!untouched) {
        status.textContent = "Check the variants: every value must be of type " + type.value + ".";
        status.className = "status bad";
      }
      previous = type.value;
    });
  }

  const rule = document.querySelector("textarea[data-validate-url]");
  if (rule) {
    const form = rule.form;
    const status = document.getElementById("targeting-status");
    let timer = null;
    let sequence = 0;
    const check = async () => {
      const mine = ++sequence;
      const body = new URLSearchParams(new FormData(form));
      body.set("action", "check");
      try {
        const response = await fetch(rule.dataset.validateUrl, {
          method: "POST",
          headers: { "X-CSRF-Token": form.elements["_csrf"].value },
          body,
          credentials: "same-origin",
        });
        const result = await response.json();
        if (mine !== sequence) return;
        const problems = (result.problems || []).map((p) => p.field + ": " + p.problem);
        status.textContent = problems.length ? problems.join("; ") : "The rule is valid.";
        status.className = "status " + (problems.length ? "bad" : "good");
        rule.setAttribute("aria-invalid", problems.length ? "true" : "false");
      } catch (error) {
        status.textContent = "Could not check the rule: " + error;
        status.className = "status bad";
      }
    };
    rule.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(check, 400);
    });
  }

  const rollout = document.getElementById("rollout-form");
  if (rollout) {
    const total = document.getElementById("rollout-total");
    const update = () => {
      let sum = 0;
      for (const input of rollout.querySelectorAll("input.percent")) sum += Number(input.value || 0);
      total.textContent = "Total: " + sum + "%" + (sum === 100 ? "" : " (must be 100)");
      total.className = "status " + (sum === 100 ? "good" : "bad");
    };
    rollout.addEventListener("input", update);
    update();
  }
});
