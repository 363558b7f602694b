// flag-server console: small enhancements over pages that work without JavaScript.
// - the targeting rule is checked by the server's own validator as you type;
// - the rollout form shows whether the percentages add up to 100;
// - the new-flag form proposes variants of the chosen type;
// - the flags grid asks a switch's reason in a dialog (without script, the server asks on a page);
// - keys: "/" focuses the search, j/k or the arrow keys move through the grid's rows, Enter opens.
"use strict";

// Whether a key press belongs to a text field (where "/" and "j" are text).
function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

function setUpSwitches() {
  const dialog = document.getElementById("switch-dialog");
  if (!dialog || typeof dialog.showModal !== "function") return;
  const title = document.getElementById("switch-dialog-title");
  const now = document.getElementById("switch-dialog-now");
  const reason = document.getElementById("switch-reason");
  const confirm = document.getElementById("switch-confirm");
  let pending = null;
  let opener = null;
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("switch-form")) return;
    if (form.elements.namedItem("reason")) return;
    event.preventDefault();
    pending = form;
    opener = form.querySelector("button.switch");
    const action = form.dataset.action;
    title.textContent = action + " " + form.dataset.flag + " in " + form.dataset.environment;
    now.textContent = "Now: " + form.dataset.words + ".";
    confirm.textContent = action;
    confirm.className = action === "Turn off" ? "danger" : "";
    reason.value = "";
    dialog.showModal();
    reason.focus();
  });
  document.getElementById("switch-dialog-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!pending || !reason.value.trim()) { reason.focus(); return; }
    const field = document.createElement("input");
    field.type = "hidden";
    field.name = "reason";
    field.value = reason.value;
    pending.appendChild(field);
    confirm.disabled = true;
    pending.submit();
  });
  document.getElementById("switch-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (opener && !confirm.disabled) opener.focus();
  });
}

function setUpKeys() {
  const search = document.getElementById("q");
  const grid = document.getElementById("flags-grid");
  const rows = grid ? Array.from(grid.tBodies[0].rows) : [];
  const links = rows.map((row) => row.querySelector("a.key"));
  const current = () => rows.findIndex((row) => row.contains(document.activeElement));
  const move = (step) => {
    if (!links.length) return false;
    const index = current();
    const next = index < 0 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, index + step));
    links[next].focus();
    links[next].scrollIntoView({ block: "nearest" });
    return true;
  };
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (event.key === "Escape" && event.target === search) { search.blur(); return; }
    if (typing(event.target)) return;
    if (event.key === "/" && search) {
      event.preventDefault();
      search.focus();
      search.select();
      return;
    }
    // Arrows move only from inside the grid (elsewhere they scroll the page); j and k from anywhere.
    const inGrid = grid && grid.contains(event.target);
    let step = 0;
    if (event.key === "j" || (event.key === "ArrowDown" && inGrid)) step = 1;
    if (event.key === "k" || (event.key === "ArrowUp" && inGrid)) step = -1;
    if (step && move(step)) event.preventDefault();
  });
}

// A table (or a chart, [data-scrolls]) wider than the screen scrolls sideways; one without a
// link or a button inside gets into the tab order, so that the keyboard can scroll it too.
function makeScrollingTablesFocusable() {
  for (const table of document.querySelectorAll("main table, main [data-scrolls]")) {
    const scrolls = table.scrollWidth > table.clientWidth + 1 && getComputedStyle(table).overflowX !== "visible";
    const reachable = table.querySelector("a[href], button:not([disabled]), input, select, textarea, [tabindex]");
    if (scrolls && !reachable) table.tabIndex = 0;
    else if (!scrolls && table.getAttribute("tabindex") === "0") table.removeAttribute("tabindex");
  }
}

/** The new-flag form's "Served when switched on" choice: its options follow the variants as they
 *  are edited, and the line under it says what the flag will serve once on (the server picks the
 *  same automatic variant: for a boolean the one whose value is true, else the first by name). */
function servedWhenOn(variants, type) {
  const choice = document.getElementById("defaultVariant");
  const line = document.getElementById("served-when-on");
  if (!choice || !line) return;
  const refresh = () => {
    let parsed = null;
    try { parsed = JSON.parse(variants.value); } catch (error) { parsed = null; }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      line.textContent = "Created off in every environment; once the variants are set, this says what it serves when switched on.";
      return;
    }
    const names = Object.keys(parsed).sort();
    const boolean = type.value === "boolean";
    const automatic = (boolean ? names.find((name) => parsed[name] === true) : undefined) ?? names[0];
    const rule = boolean ? "the variant whose value is true" : "the first variant by name";
    const chosen = names.includes(choice.value) ? choice.value : "";
    const labels = [automatic === undefined ? "Automatic (" + rule + ")" : "Automatic: \"" + automatic + "\" (" + rule + ")"].concat(names);
    // Rebuilt only when the choices change, so an open list is not replaced under the pointer.
    if (JSON.stringify(labels) !== JSON.stringify(Array.from(choice.options, (option) => option.text))) {
      choice.replaceChildren(...labels.map((label, index) => new Option(label, index === 0 ? "" : label)));
      choice.value = chosen;
    }
    const served = chosen || automatic;
    line.textContent = served === undefined
      ? "Created off in every environment; add a variant to say what it serves when switched on."
      : "Created off in every environment; switched on, it serves \"" + served + "\" (" + JSON.stringify(parsed[served]) + ").";
  };
  // After the variant rows (rule-builder.js) have written the JSON field.
  const soon = () => setTimeout(refresh, 0);
  for (const event of ["input", "change", "click"]) variants.form.addEventListener(event, soon);
  refresh();
}

document.addEventListener("DOMContentLoaded", () => {
  setUpSwitches();
  setUpKeys();
  makeScrollingTablesFocusable();
  window.addEventListener("resize", makeScrollingTablesFocusable);

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
    servedWhenOn(variants, type);
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
