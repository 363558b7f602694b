// flag-server console: editing without JSON.
//
// 1. `FlagRuleModel`: a well-defined subset of flagd targeting (JSON Logic) read into a builder
//    model and printed back. Reading then printing any rule it accepts gives a JSON-equal rule;
//    everything else is refused with the reason, and the page keeps the JSON editor for it.
//
//    Targeting   := Serve                                   (no rules: everyone gets Serve)
//                 | {"if": [Cond, Serve, Cond, Serve, ..., Else?]}   (Else: Serve or another "if")
//    Serve       := "variant" | null | {"fractional": [BucketBy?, Bucket, ...]}
//    Bucket      := ["variant"] | ["variant", number]
//    BucketBy    := {"var": attr} | {"cat": [("text" | {"var": attr}), ...]}
//    Cond        := Clause | {"and": [Clause, ...]} | {"or": [Clause, ...]}
//    Clause      := {op: [Var, literal]} | {op: [literal, Var]}   op: == != === !== < <= > >=
//                 | {"starts_with": [Var, "text"]} | {"ends_with": [Var, "text"]}
//                 | {"sem_ver": [Var, "=" | "!=" | "<" | "<=" | ">" | ">=" | "^" | "~", "version"]}
//                 | {"in": [Var, [literal, ...]]}     (one of a list)
//                 | {"in": ["text", Var]}             (contains)
//                 | {"$ref": "segment"}               (in a segment: the environment's shared rule)
//                 | {"!": In} | {"!": {"$ref": "segment"}}          (the negations)
//    Var         := {"var": "attr"} | {"var": ["attr"]}
//    A segment is one Cond.
//
// 2. The builder on the page, over the form's JSON field (which stays the field that is sent,
//    so the form works without JavaScript): a change in the builder rewrites the field; a rule the
//    model cannot show leaves the field as it is, visible, checked as you type.
// 3. Variant rows with inputs of the flag's type over the new-flag form's JSON field.
// 4. The "who gets what" preview of the settings form, refreshed as the rule changes.
"use strict";

(function (global) {
  class Unshowable extends Error {}
  const fail = (why) => { throw new Unshowable(why); };
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  const isLiteral = (value) => typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && isFinite(value));
  const operatorOf = (node) => {
    if (!isObject(node)) return null;
    const keys = Object.keys(node);
    return keys.length === 1 ? keys[0] : null;
  };

  const COMPARISONS = ["==", "!=", "===", "!==", "<", "<=", ">", ">="];
  const SEMVER = ["=", "!=", "<", "<=", ">", ">=", "^", "~"];
  const TEXT = ["starts_with", "ends_with"];
  /** Every clause operator the builder offers, with its words. */
  const OPERATORS = [
    ["==", "equals"], ["!=", "does not equal"], ["===", "is exactly"], ["!==", "is not exactly"],
    ["<", "is less than"], ["<=", "is at most"], [">", "is greater than"], [">=", "is at least"],
    ["in", "is one of"], ["not in", "is not one of"], ["contains", "contains"], ["not contains", "does not contain"],
    ["starts_with", "starts with"], ["ends_with", "ends with"],
  ].concat(SEMVER.map((op) => ["sem_ver " + op, "version " + op])).concat([["segment", "is in segment"], ["not segment", "is not in segment"]]);

  function parseVar(node) {
    if (operatorOf(node) !== "var") return null;
    const path = node.var;
    if (typeof path === "string") return { name: path, form: "string" };
    if (Array.isArray(path) && path.length === 1 && typeof path[0] === "string") return { name: path[0], form: "array" };
    return null;
  }
  const printVar = (attribute) => ({ var: attribute.form === "array" ? [attribute.name] : attribute.name });

  function parseClause(node) {
    const op = operatorOf(node);
    if (op === null) fail("a condition must be an object with one operator");
    const args = node[op];
    if (op === "$ref") {
      if (typeof args !== "string") fail("\"$ref\" must name a segment");
      return { operator: "segment", segment: args };
    }
    if (op === "!") {
      if (!isObject(args)) fail("\"!\" is shown only around \"in\" or a segment");
      const inner = parseClause(args);
      const negated = { in: "not in", contains: "not contains", segment: "not segment" }[inner.operator];
      if (!negated) fail("\"!\" is shown only around \"in\" or a segment");
      return Object.assign(inner, { operator: negated });
    }
    if (!Array.isArray(args)) fail("\"" + op + "\" needs a list of arguments");
    if (COMPARISONS.includes(op)) {
      if (args.length !== 2) fail("\"" + op + "\" is shown with two arguments");
      const left = parseVar(args[0]);
      const right = parseVar(args[1]);
      if (left && isLiteral(args[1])) return { operator: op, attribute: left, value: args[1], reversed: false };
      if (right && isLiteral(args[0])) return { operator: op, attribute: right, value: args[0], reversed: true };
      fail("\"" + op + "\" is shown between an attribute and a value");
    }
    if (TEXT.includes(op)) {
      const attribute = args.length === 2 ? parseVar(args[0]) : null;
      if (!attribute || typeof args[1] !== "string") fail("\"" + op + "\" is shown as an attribute and a text");
      return { operator: op, attribute, value: args[1] };
    }
    if (op === "sem_ver") {
      const attribute = args.length === 3 ? parseVar(args[0]) : null;
      if (!attribute || !SEMVER.includes(args[1]) || typeof args[2] !== "string") {
        fail("\"sem_ver\" is shown as an attribute, one of " + SEMVER.join(" ") + ", and a version");
      }
      return { operator: "sem_ver " + args[1], attribute, value: args[2] };
    }
    if (op === "in" && args.length === 2) {
      const attribute = parseVar(args[0]);
      if (attribute && Array.isArray(args[1]) && args[1].every(isLiteral)) {
        return { operator: "in", attribute, value: args[1].slice() };
      }
      const container = parseVar(args[1]);
      if (container && typeof args[0] === "string") return { operator: "contains", attribute: container, value: args[0] };
    }
    if (op === "in") fail("\"in\" is shown as an attribute in a list of values, or a text in an attribute");
    fail("the operator \"" + op + "\" is not one of the builder's");
  }

  function printClause(clause) {
    const op = clause.operator;
    if (op === "segment") return { $ref: clause.segment };
    if (op === "not segment") return { "!": { $ref: clause.segment } };
    if (op === "not in" || op === "not contains") return { "!": printClause(Object.assign({}, clause, { operator: op.slice(4) })) };
    const attribute = printVar(clause.attribute);
    if (COMPARISONS.includes(op)) return { [op]: clause.reversed ? [clause.value, attribute] : [attribute, clause.value] };
    if (TEXT.includes(op)) return { [op]: [attribute, clause.value] };
    if (op.startsWith("sem_ver ")) return { sem_ver: [attribute, op.slice(8), clause.value] };
    if (op === "in") return { in: [attribute, clause.value.slice()] };
    if (op === "contains") return { in: [clause.value, attribute] };
    throw new Error("unknown operator " + op);
  }

  function parseCondition(node) {
    const op = operatorOf(node);
    if ((op === "and" || op === "or") && Array.isArray(node[op])) {
      if (node[op].length === 0) fail("an empty \"" + op + "\" is not shown");
      return { combinator: op, clauses: node[op].map(parseClause) };
    }
    return { combinator: null, clauses: [parseClause(node)] };
  }

  function printCondition(condition) {
    const clauses = condition.clauses.map(printClause);
    if (condition.combinator === null && clauses.length === 1) return clauses[0];
    return { [condition.combinator || "and"]: clauses };
  }

  function parseBucketBy(node) {
    const attribute = parseVar(node);
    if (attribute) return { form: "var", parts: [{ attribute }] };
    if (operatorOf(node) === "cat" && Array.isArray(node.cat) && node.cat.length > 0) {
      return {
        form: "cat",
        parts: node.cat.map((part) => {
          if (typeof part === "string") return { text: part };
          const attribute = parseVar(part);
          if (!attribute) fail("a split is shown bucketed by attributes and texts");
          return { attribute };
        }),
      };
    }
    fail("a split is shown bucketed by an attribute or a \"cat\" of attributes and texts");
  }

  function printBucketBy(bucketBy) {
    const parts = bucketBy.parts.map((part) => (part.attribute ? printVar(part.attribute) : part.text));
    if (bucketBy.form !== "cat" && parts.length === 1 && bucketBy.parts[0].attribute) return parts[0];
    return { cat: parts };
  }

  function parseServe(node) {
    if (typeof node === "string") return { kind: "variant", variant: node };
    if (node === null) return { kind: "null" };
    if (operatorOf(node) === "fractional" && Array.isArray(node.fractional)) {
      const args = node.fractional.slice();
      const bucketBy = args.length > 0 && !Array.isArray(args[0]) ? parseBucketBy(args.shift()) : null;
      if (args.length === 0) fail("a split needs at least one variant");
      const buckets = args.map((bucket) => {
        if (!Array.isArray(bucket) || typeof bucket[0] !== "string") fail("a split is shown with variant names written out");
        if (bucket.length === 1) return { variant: bucket[0], weight: null };
        if (bucket.length !== 2 || typeof bucket[1] !== "number" || !isFinite(bucket[1])) {
          fail("a split is shown with weights written as numbers");
        }
        return { variant: bucket[0], weight: bucket[1] };
      });
      return { kind: "split", bucketBy, buckets };
    }
    if (typeof node === "boolean" || typeof node === "number") fail("a rule that serves " + JSON.stringify(node) + " instead of a variant name is not shown");
    fail("a rule is shown when it serves a variant name, nothing, or a \"fractional\" split");
  }

  function printServe(serve) {
    switch (serve.kind) {
      case "variant": return serve.variant;
      case "null": return null;
      case "omitted": return undefined;
      case "split": {
        const buckets = serve.buckets.map((b) => (b.weight === null ? [b.variant] : [b.variant, b.weight]));
        return { fractional: serve.bucketBy ? [printBucketBy(serve.bucketBy)].concat(buckets) : buckets };
      }
    }
    throw new Error("unknown serve " + serve.kind);
  }

  function parseChain(node, nested, rules) {
    const args = node.if;
    if (!Array.isArray(args) || args.length < 2) fail("\"if\" is shown with at least a condition and what it serves");
    const pairs = Math.floor(args.length / 2);
    for (let i = 0; i < pairs; i++) {
      rules.push({ when: parseCondition(args[2 * i]), serve: parseServe(args[2 * i + 1]), nested: nested && i === 0 });
    }
    if (args.length % 2 === 0) return { kind: "omitted" };
    const last = args[args.length - 1];
    if (operatorOf(last) === "if") return parseChain(last, true, rules);
    return parseServe(last);
  }

  /** The builder model of a flag's targeting (`undefined`: none). Throws `Unshowable`. */
  function parseTargeting(rule) {
    if (rule === undefined) return { rules: [], otherwise: { kind: "omitted" } };
    if (operatorOf(rule) === "if") {
      const rules = [];
      const otherwise = parseChain(rule, false, rules);
      return { rules, otherwise };
    }
    return { rules: [], otherwise: parseServe(rule) };
  }

  /** The targeting a model describes (`undefined`: none). */
  function printTargeting(model) {
    if (model.rules.length === 0) return printServe(model.otherwise);
    const groups = [];
    model.rules.forEach((rule, index) => {
      if (index === 0 || rule.nested) groups.push([]);
      groups[groups.length - 1].push(rule);
    });
    let tail = printServe(model.otherwise);
    for (let g = groups.length - 1; g >= 0; g--) {
      const args = [];
      for (const rule of groups[g]) args.push(printCondition(rule.when), printServe(rule.serve));
      if (tail !== undefined) args.push(tail);
      tail = { if: args };
    }
    return tail;
  }

  function jsonEqual(a, b) {
    if (a === b) return true;
    if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
    if (isObject(a) && isObject(b)) {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
    }
    return false;
  }

  /**
   * Reads `rule` as `kind` ("targeting" or "segment"): `{shown: true, model}` when the builder
   * shows it (and printing the model gives `rule` back), else `{shown: false, why}`.
   */
  function read(rule, kind) {
    try {
      const model = kind === "segment" ? parseCondition(rule) : parseTargeting(rule);
      const printed = kind === "segment" ? printCondition(model) : printTargeting(model);
      if (!jsonEqual(printed, rule)) return { shown: false, why: "the builder would write it differently" };
      return { shown: true, model };
    } catch (error) {
      if (error instanceof Unshowable) return { shown: false, why: error.message };
      throw error;
    }
  }

  /** The rule a model describes (`undefined`: none, for a segment without a condition yet). */
  const write = (model, kind) => {
    if (kind !== "segment") return printTargeting(model);
    return model.clauses.length === 0 ? undefined : printCondition(model);
  };

  global.FlagRuleModel = { read, write, jsonEqual, OPERATORS, SEMVER };
})(window);

// ---------------------------------------------------------------------------------------------
// The builder on the page.
(function () {
  const Model = window.FlagRuleModel;

  function el(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === false || value === null || value === undefined) continue;
      if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children || []) if (child) node.append(child);
    return node;
  }
  let serial = 0;
  const nextID = (prefix) => prefix + "-" + ++serial;
  function labelled(text, control, className) {
    if (!control.id) control.id = nextID("rb");
    return el("span", { class: "rb-field " + (className || "") }, [el("label", { for: control.id, text }), control]);
  }
  function select(options, value) {
    const node = el("select");
    for (const [optionValue, text] of options) node.append(el("option", { value: optionValue, text, selected: optionValue === value }));
    return node;
  }

  // A literal as typed in an input: its JSON type kept in a select beside it.
  function literalType(value) {
    return typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "text";
  }
  function literalFrom(text, type) {
    if (type === "number") {
      const number = Number(text);
      return text.trim() !== "" && isFinite(number) ? number : text;
    }
    if (type === "boolean") return text.trim() === "true";
    return text;
  }

  /** The builder over `field` (a textarea holding the rule as JSON). */
  class RuleBuilder {
    constructor(field) {
      this.field = field;
      this.kind = field.dataset.ruleBuilder; // "targeting" or "segment"
      this.variants = JSON.parse(field.dataset.variants || "[]");
      this.segments = JSON.parse(field.dataset.segments || "[]");
      this.root = el("div", { class: "rule-builder", id: field.id + "-builder" });
      this.note = el("p", { class: "note rb-note", id: field.id + "-builder-note", role: "status" });
      this.toggle = el("button", { type: "button", class: "rb-toggle", id: field.id + "-show-json", "aria-expanded": "false", "aria-controls": field.id });
      this.holder = field.closest("p") || field.parentNode;
      this.holder.before(this.note, this.root);
      this.holder.before(el("p", {}, [this.toggle]));
      this.toggle.addEventListener("click", () => this.showJSON(this.holder.hidden));
      field.addEventListener("input", () => { if (!this.writing) this.load(false); });
      this.load(true);
    }

    showJSON(visible) {
      this.holder.hidden = !visible;
      this.toggle.textContent = visible ? "Hide JSON" : "Show JSON";
      this.toggle.setAttribute("aria-expanded", String(visible));
    }

    /** Reads the field; shows the builder when the rule is one it can show. */
    load(first) {
      const text = this.field.value.trim();
      let rule;
      if (text !== "") {
        try {
          rule = JSON.parse(text);
        } catch (error) {
          return this.unshown("The JSON is not valid yet (" + error.message + "); the builder shows it once it is.", first);
        }
      }
      const result = text === "" && this.kind === "segment"
        ? { shown: true, model: { combinator: null, clauses: [] } }
        : Model.read(rule, this.kind);
      if (!result.shown) return this.unshown("The builder cannot show this rule (" + result.why + "). Edit it as JSON; it is kept exactly as written.", first);
      this.model = result.model;
      this.note.hidden = true;
      this.note.textContent = "";
      this.root.hidden = false;
      this.root.dataset.shown = "true";
      if (first) this.showJSON(false);
      this.render();
    }

    unshown(message, first) {
      this.model = null;
      this.root.hidden = true;
      this.root.dataset.shown = "false";
      this.note.hidden = false;
      this.note.textContent = message;
      if (first || this.holder.hidden) this.showJSON(true);
    }

    /** Writes the model into the field and tells the page (check, preview). */
    commit() {
      const rule = Model.write(this.model, this.kind);
      this.field.value = rule === undefined ? "" : JSON.stringify(rule, null, 2);
      this.render();
      this.writing = true;
      try {
        // The console's check as you type listens to "input"; the preview to this event.
        this.field.dispatchEvent(new Event("input", { bubbles: false }));
        this.field.dispatchEvent(new CustomEvent("rule-builder-change", { bubbles: true }));
      } finally {
        this.writing = false;
      }
    }

    render() {
      const focus = document.activeElement && this.root.contains(document.activeElement) ? document.activeElement.dataset.path : null;
      this.root.replaceChildren();
      if (this.kind === "segment") {
        this.root.append(this.conditionEditor(this.model, "segment"));
      } else {
        const list = el("ol", { class: "rb-rules" });
        this.model.rules.forEach((rule, index) => list.append(this.ruleEditor(rule, index)));
        this.root.append(el("h4", { text: "Rules, first match wins" }), list);
        const add = el("button", { type: "button", class: "rb-add", "data-path": "add-rule", id: this.field.id + "-add-rule", text: "Add rule" });
        add.addEventListener("click", () => {
          const last = this.model.rules[this.model.rules.length - 1];
          this.model.rules.push({
            when: { combinator: null, clauses: [{ operator: "==", attribute: { name: "", form: "string" }, value: "", reversed: false }] },
            serve: { kind: "variant", variant: this.variants[0] || "" }, nested: last ? last.nested : false,
          });
          this.commit();
        });
        this.root.append(el("p", {}, [add]));
        const otherwise = el("div", { class: "rb-otherwise" }, [el("h4", { text: this.model.rules.length ? "Everyone else" : "Everyone" })]);
        otherwise.append(this.serveEditor(this.model.otherwise, (serve) => { this.model.otherwise = serve; }, "otherwise", true));
        this.root.append(otherwise);
      }
      if (focus) {
        const again = this.root.querySelector('[data-path="' + focus + '"]');
        if (again) again.focus();
      }
    }

    ruleEditor(rule, index) {
      const path = "rule-" + index;
      const item = el("li", { class: "rb-rule card", "data-rule": String(index) });
      const tools = el("span", { class: "rb-tools" });
      const move = (delta, text) => {
        const button = el("button", {
          type: "button", "data-path": path + "-" + text, text, "aria-label": "Move rule " + (index + 1) + " " + text.toLowerCase(),
          disabled: index + delta < 0 || index + delta >= this.model.rules.length,
        });
        button.addEventListener("click", () => {
          const rules = this.model.rules;
          [rules[index], rules[index + delta]] = [rules[index + delta], rules[index]];
          this.commit();
        });
        return button;
      };
      const remove = el("button", { type: "button", class: "rb-danger", "data-path": path + "-remove", text: "Remove rule", "aria-label": "Remove rule " + (index + 1) });
      remove.addEventListener("click", () => { this.model.rules.splice(index, 1); this.commit(); });
      tools.append(move(-1, "Up"), move(1, "Down"), remove);
      item.append(el("div", { class: "rb-rule-head" }, [el("strong", { text: "Rule " + (index + 1) }), tools]));
      item.append(this.conditionEditor(rule.when, path));
      item.append(el("div", { class: "rb-serve" }, [el("strong", { text: "then serve" }),
        this.serveEditor(rule.serve, (serve) => { rule.serve = serve; }, path + "-serve", false)]));
      return item;
    }

    conditionEditor(condition, path) {
      const box = el("div", { class: "rb-condition" });
      if (condition.clauses.length > 1) {
        const combinator = select([["and", "all of these match"], ["or", "any of these matches"]], condition.combinator || "and");
        combinator.dataset.path = path + "-combinator";
        combinator.addEventListener("change", () => { condition.combinator = combinator.value; this.commit(); });
        box.append(el("p", {}, [labelled("When", combinator)]));
      } else {
        box.append(el("p", { class: "rb-when", text: condition.clauses.length ? "When" : "No condition yet: add one." }));
      }
      const list = el("ul", { class: "rb-clauses" });
      condition.clauses.forEach((clause, index) => list.append(this.clauseEditor(condition, clause, index, path + "-clause-" + index)));
      box.append(list);
      const add = el("button", { type: "button", class: "rb-add", "data-path": path + "-add-clause", text: "Add condition" });
      add.addEventListener("click", () => {
        condition.clauses.push({ operator: "==", attribute: { name: "", form: "string" }, value: "", reversed: false });
        if (condition.clauses.length > 1 && condition.combinator === null) condition.combinator = "and";
        this.commit();
      });
      box.append(add);
      return box;
    }

    clauseEditor(condition, clause, index, path) {
      const row = el("li", { class: "rb-clause" });
      const isSegment = clause.operator === "segment" || clause.operator === "not segment";
      if (!isSegment) {
        const attribute = el("input", { value: clause.attribute.name, list: "rb-attributes", "data-path": path + "-attribute", class: "rb-attribute", required: true });
        attribute.addEventListener("change", () => { clause.attribute.name = attribute.value.trim(); this.commit(); });
        row.append(labelled("Attribute", attribute));
      }
      const operator = select(Model.OPERATORS, clause.operator);
      operator.dataset.path = path + "-operator";
      operator.classList.add("rb-operator");
      operator.addEventListener("change", () => { this.changeOperator(clause, operator.value); this.commit(); });
      row.append(labelled("Operator", operator));
      row.append(this.valueEditor(clause, path));
      // A rule keeps at least one condition (remove the rule instead); a segment may be emptied.
      const remove = el("button", {
        type: "button", class: "rb-danger", "data-path": path + "-remove", text: "Remove", "aria-label": "Remove condition",
        disabled: this.kind !== "segment" && condition.clauses.length === 1,
      });
      remove.addEventListener("click", () => {
        condition.clauses.splice(index, 1);
        this.commit();
      });
      row.append(remove);
      return row;
    }

    changeOperator(clause, next) {
      const wasList = clause.operator === "in" || clause.operator === "not in";
      const isList = next === "in" || next === "not in";
      const wasSegment = clause.operator === "segment" || clause.operator === "not segment";
      const isSegment = next === "segment" || next === "not segment";
      clause.operator = next;
      if (isSegment) {
        if (!wasSegment) { clause.segment = this.segments[0] || ""; delete clause.attribute; delete clause.value; }
        return;
      }
      if (wasSegment) { clause.attribute = { name: "", form: "string" }; delete clause.segment; }
      if (isList && !wasList) clause.value = clause.value === undefined || clause.value === "" ? [] : [clause.value];
      else if (!isList && wasList) clause.value = clause.value.length ? clause.value[0] : "";
      const textOnly = next.startsWith("sem_ver") || next === "starts_with" || next === "ends_with" || next.endsWith("contains");
      if (textOnly && typeof clause.value !== "string") clause.value = String(clause.value);
      if (clause.reversed === undefined) clause.reversed = false;
    }

    valueEditor(clause, path) {
      if (clause.operator === "segment" || clause.operator === "not segment") {
        const names = this.segments.includes(clause.segment) ? this.segments : [clause.segment].concat(this.segments);
        const segment = select(names.map((name) => [name, name]), clause.segment);
        segment.dataset.path = path + "-segment";
        segment.classList.add("rb-segment");
        segment.addEventListener("change", () => { clause.segment = segment.value; this.commit(); });
        return labelled("Segment", segment);
      }
      if (clause.operator === "in" || clause.operator === "not in") {
        const type = literalType(clause.value[0]);
        const values = el("textarea", { rows: "2", class: "rb-list", "data-path": path + "-list" });
        values.value = clause.value.map(String).join("\n");
        const types = select([["text", "texts"], ["number", "numbers"], ["boolean", "booleans"]], type);
        types.dataset.path = path + "-list-type";
        const update = () => {
          clause.value = values.value.split("\n").map((line) => line.trim()).filter((line) => line !== "").map((line) => literalFrom(line, types.value));
          this.commit();
        };
        values.addEventListener("change", update);
        types.addEventListener("change", update);
        return el("span", { class: "rb-value" }, [labelled("Values, one a line", values), labelled("As", types)]);
      }
      const textOnly = !Model.OPERATORS.slice(0, 8).some(([op]) => op === clause.operator);
      const value = el("input", { value: String(clause.value), "data-path": path + "-value", class: "rb-text" });
      const parts = [labelled(clause.operator.startsWith("sem_ver") ? "Version" : "Value", value)];
      let types = null;
      if (!textOnly) {
        types = select([["text", "text"], ["number", "number"], ["boolean", "boolean"]], literalType(clause.value));
        types.dataset.path = path + "-value-type";
        parts.push(labelled("As", types));
      }
      const update = () => {
        clause.value = types ? literalFrom(value.value, types.value) : value.value;
        this.commit();
      };
      value.addEventListener("change", update);
      if (types) types.addEventListener("change", update);
      return el("span", { class: "rb-value" }, parts);
    }

    serveEditor(serve, assign, path, isDefault) {
      const box = el("div", { class: "rb-serve-choice" });
      const choices = this.variants.map((name) => ["variant:" + name, "variant " + name]);
      if (serve.kind === "variant" && !this.variants.includes(serve.variant)) choices.unshift(["variant:" + serve.variant, "variant " + serve.variant + " (not a variant of this flag)"]);
      choices.push(["split", "a percentage split"]);
      choices.push([isDefault ? "omitted" : "null", "the default variant"]);
      const current = serve.kind === "variant" ? "variant:" + serve.variant : serve.kind === "split" ? "split" : isDefault ? "omitted" : "null";
      if (isDefault && serve.kind === "null") choices.push(["null", "the default variant (written as null)"]);
      if (!isDefault && serve.kind === "omitted") choices.push(["omitted", "the default variant"]);
      const chosen = serve.kind === "null" ? "null" : current;
      const kind = select(choices, chosen);
      kind.dataset.path = path + "-kind";
      kind.classList.add("rb-serve-kind");
      kind.addEventListener("change", () => {
        const value = kind.value;
        if (value.startsWith("variant:")) assign({ kind: "variant", variant: value.slice(8) });
        else if (value === "split") {
          const each = Math.floor(100 / Math.max(1, this.variants.length));
          assign({ kind: "split", bucketBy: null, buckets: this.variants.map((name, i) => ({ variant: name, weight: i === 0 ? 100 - each * (this.variants.length - 1) : each })) });
        } else assign({ kind: value });
        this.commit();
      });
      box.append(labelled(isDefault ? "Serve" : "Variant", kind));
      if (serve.kind === "split") box.append(this.splitEditor(serve, path));
      return box;
    }

    splitEditor(serve, path) {
      const box = el("div", { class: "rb-split" });
      const table = el("table", { class: "rb-buckets" }, [el("thead", {}, [el("tr", {}, [
        el("th", { scope: "col", text: "Variant" }), el("th", { scope: "col", text: "Weight" }), el("th", { scope: "col", text: "Share" }), el("td")])])]);
      const body = el("tbody");
      const total = serve.buckets.reduce((sum, b) => sum + (b.weight === null ? 1 : b.weight), 0);
      serve.buckets.forEach((bucket, index) => {
        const names = this.variants.includes(bucket.variant) ? this.variants : [bucket.variant].concat(this.variants);
        const variant = select(names.map((n) => [n, n]), bucket.variant);
        variant.dataset.path = path + "-bucket-" + index + "-variant";
        variant.setAttribute("aria-label", "Variant of share " + (index + 1));
        variant.addEventListener("change", () => { bucket.variant = variant.value; this.commit(); });
        const weight = el("input", { type: "number", step: "1", value: bucket.weight === null ? "" : String(bucket.weight), placeholder: "1", class: "rb-weight",
          "data-path": path + "-bucket-" + index + "-weight", "aria-label": "Weight of share " + (index + 1) });
        weight.addEventListener("change", () => {
          bucket.weight = weight.value.trim() === "" ? null : Number(weight.value);
          this.commit();
        });
        const share = total > 0 ? ((bucket.weight === null ? 1 : bucket.weight) * 100 / total).toFixed(1) + " %" : "—";
        const remove = el("button", { type: "button", class: "rb-danger", "data-path": path + "-bucket-" + index + "-remove", text: "Remove", disabled: serve.buckets.length === 1 });
        remove.addEventListener("click", () => { serve.buckets.splice(index, 1); this.commit(); });
        body.append(el("tr", {}, [el("td", {}, [variant]), el("td", {}, [weight]), el("td", { text: share }), el("td", {}, [remove])]));
      });
      table.append(body);
      box.append(table);
      const add = el("button", { type: "button", class: "rb-add", "data-path": path + "-add-bucket", text: "Add share" });
      add.addEventListener("click", () => { serve.buckets.push({ variant: this.variants[0] || "", weight: 0 }); this.commit(); });
      box.append(el("p", { class: "hint", text: "Weights are relative: each user gets a variant with probability weight ÷ total, and keeps it." }), add);
      // Bucketing: by default flagd hashes the flag key and the targeting key.
      const by = el("input", {
        value: serve.bucketBy ? serve.bucketBy.parts.map((p) => (p.attribute ? p.attribute.name : JSON.stringify(p.text))).join(" + ") : "",
        placeholder: "flag key + targeting key", "data-path": path + "-bucket-by", class: "rb-bucket-by",
      });
      by.addEventListener("change", () => {
        const text = by.value.trim();
        if (text === "") { serve.bucketBy = null; this.commit(); return; }
        const parts = text.split("+").map((part) => part.trim()).filter((part) => part !== "").map((part) => {
          if (/^".*"$/.test(part)) { try { return { text: JSON.parse(part) }; } catch (error) { return { text: part.slice(1, -1) }; } }
          return { attribute: { name: part, form: "string" } };
        });
        const before = serve.bucketBy;
        const same = before && before.parts.length === parts.length && before.parts.every((p, i) => (p.attribute ? p.attribute.name : p.text) === (parts[i].attribute ? parts[i].attribute.name : parts[i].text));
        if (!same) serve.bucketBy = { form: parts.length === 1 && parts[0].attribute ? "var" : "cat", parts };
        this.commit();
      });
      box.append(el("p", {}, [labelled("Bucket by (attributes and \"texts\" joined with +; empty for flagd's default)", by)]));
      return box;
    }
  }

  // Variants as rows of inputs of the flag's type, over the JSON field that is sent.
  class VariantRows {
    constructor(field, typeSelect) {
      this.field = field;
      this.type = typeSelect;
      this.root = el("div", { class: "variant-rows", id: "variant-rows" });
      this.note = el("p", { class: "note", role: "status", id: "variant-rows-note", hidden: true });
      this.holder = field.closest("p");
      this.holder.before(this.note, this.root);
      this.toggle = el("button", { type: "button", id: "variants-show-json", "aria-expanded": "false", "aria-controls": field.id, text: "Show JSON" });
      this.holder.before(el("p", {}, [this.toggle]));
      this.toggle.addEventListener("click", () => {
        const visible = this.holder.hidden;
        this.holder.hidden = !visible;
        this.toggle.textContent = visible ? "Hide JSON" : "Show JSON";
        this.toggle.setAttribute("aria-expanded", String(visible));
      });
      field.addEventListener("input", () => this.load());
      // After console.js has swapped in the new type's example variants.
      typeSelect.addEventListener("change", () => setTimeout(() => this.load(), 0));
      this.holder.hidden = true;
      this.load();
    }

    load() {
      let variants;
      try {
        variants = JSON.parse(this.field.value);
      } catch (error) {
        variants = null;
      }
      if (variants === null || typeof variants !== "object" || Array.isArray(variants)) {
        this.rows = null;
        this.root.hidden = true;
        this.note.hidden = false;
        this.note.textContent = "The variants are not a JSON object yet; edit them as JSON.";
        this.holder.hidden = false;
        return;
      }
      this.note.hidden = true;
      this.root.hidden = false;
      this.rows = Object.entries(variants).map(([name, value]) => ({ name, value, text: this.text(value) }));
      this.render();
    }

    text(value) {
      return this.type.value === "object" ? JSON.stringify(value, null, 2) : String(value);
    }

    value(row) {
      switch (this.type.value) {
        case "boolean": return row.text === "true";
        case "integer": case "float": {
          const number = Number(row.text);
          return row.text.trim() !== "" && isFinite(number) ? number : row.text;
        }
        case "object":
          try { return JSON.parse(row.text); } catch (error) { return row.text; }
        default: return row.text;
      }
    }

    /** Writes the rows into the field, unless it already says the same (so the proposed
     *  example stays as written, and console.js still recognises it on a type change). */
    commit() {
      const object = {};
      for (const row of this.rows) object[row.name] = this.value(row);
      let current;
      try { current = JSON.parse(this.field.value); } catch (error) { current = undefined; }
      if (!window.FlagRuleModel.jsonEqual(current, object)) this.field.value = JSON.stringify(object);
    }

    render() {
      this.root.replaceChildren();
      const type = this.type.value;
      const table = el("table", { class: "rb-variants" }, [el("caption", { text: "Variants (" + type + ")" }),
        el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "Name" }), el("th", { scope: "col", text: "Value" }), el("td")])])]);
      const body = el("tbody");
      this.rows.forEach((row, index) => {
        const name = el("input", { value: row.name, class: "variant-name", "aria-label": "Name of variant " + (index + 1), required: true });
        name.addEventListener("input", () => { row.name = name.value; this.commit(); });
        let input;
        const status = el("span", { class: "status", "aria-live": "polite" });
        if (type === "boolean") {
          input = select([["true", "true"], ["false", "false"]], row.text === "false" ? "false" : "true");
          row.text = input.value;
        } else if (type === "object") {
          input = el("textarea", { rows: "3", spellcheck: "false" });
          input.value = row.text;
        } else {
          input = el("input", type === "string" ? {} : { type: "number", step: type === "integer" ? "1" : "any" });
          input.value = row.text;
        }
        input.classList.add("variant-value");
        input.setAttribute("aria-label", "Value of variant " + (index + 1));
        const check = () => {
          let problem = "";
          if (type === "object") {
            try {
              const parsed = JSON.parse(row.text);
              if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) problem = "must be a JSON object";
            } catch (error) { problem = "not JSON: " + error.message; }
          } else if (type === "integer" && !/^-?\d+$/.test(row.text.trim())) problem = "must be a whole number";
          else if (type === "float" && (row.text.trim() === "" || !isFinite(Number(row.text)))) problem = "must be a number";
          status.textContent = problem ? problem : type === "object" ? "valid JSON" : "";
          status.className = "status " + (problem ? "bad" : "good");
          input.setAttribute("aria-invalid", problem ? "true" : "false");
        };
        input.addEventListener(type === "boolean" ? "change" : "input", () => { row.text = input.value; check(); this.commit(); });
        check();
        const remove = el("button", { type: "button", class: "rb-danger", text: "Remove", "aria-label": "Remove variant " + (index + 1), disabled: this.rows.length === 1 });
        remove.addEventListener("click", () => { this.rows.splice(index, 1); this.commit(); this.render(); });
        body.append(el("tr", {}, [el("td", {}, [name]), el("td", {}, [input, status]), el("td", {}, [remove])]));
      });
      table.append(body);
      const add = el("button", { type: "button", id: "add-variant", class: "rb-add", text: "Add variant" });
      add.addEventListener("click", () => {
        const empty = { boolean: "false", string: "", integer: "0", float: "0", object: "{}" }[type];
        this.rows.push({ name: "variant-" + (this.rows.length + 1), text: empty === undefined ? "" : empty });
        this.commit();
        this.render();
      });
      this.root.append(table, add);
    }
  }

  // The live "who gets what" preview of the settings form.
  function livePreview(form) {
    const url = form.dataset.previewUrl;
    const box = document.getElementById("live-preview");
    if (!url || !box) return;
    let timer = null;
    let sequence = 0;
    const refresh = async () => {
      const mine = ++sequence;
      const body = new URLSearchParams(new FormData(form));
      body.set("action", "preview");
      try {
        const response = await fetch(url, { method: "POST", headers: { "X-CSRF-Token": form.elements["_csrf"].value }, body, credentials: "same-origin" });
        const result = await response.json();
        if (mine !== sequence) return;
        box.replaceChildren();
        const problems = (result.problems || []).map((p) => (p.field ? p.field + ": " : "") + p.problem);
        if (problems.length) {
          box.append(el("p", { class: "status bad", text: "No preview: " + problems.join("; ") }));
          return;
        }
        box.append(el("p", { class: "hint", text: "Over " + result.total + " sample users (user-1 … user-" + result.total + ", no other attributes)" + (result.enabled ? "" : "; the flag is off, so this is what it serves once on") + ":" }));
        const rows = Object.entries(result.counts).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([variant, count]) => el("tr", {}, [
          el("th", { scope: "row", text: variant }), el("td", { text: String(count) }), el("td", { text: (count * 100 / Math.max(1, result.total)).toFixed(1) + " %" })]));
        box.append(el("table", { id: "live-preview-table" }, [
          el("thead", {}, [el("tr", {}, [el("th", { scope: "col", text: "Variant" }), el("th", { scope: "col", text: "Users" }), el("th", { scope: "col", text: "Share" })])]),
          el("tbody", {}, rows)]));
      } catch (error) {
        box.replaceChildren(el("p", { class: "status bad", text: "Could not preview: " + error }));
      }
    };
    const soon = () => { clearTimeout(timer); timer = setTimeout(refresh, 300); };
    form.addEventListener("input", soon);
    form.addEventListener("change", soon);
    form.addEventListener("rule-builder-change", soon);
    refresh();
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!document.getElementById("rb-attributes")) {
      const list = el("datalist", { id: "rb-attributes" });
      for (const name of ["targetingKey", "email", "country", "plan", "appVersion", "$flagd.flagKey", "$flagd.timestamp"]) list.append(el("option", { value: name }));
      document.body.append(list);
    }
    for (const field of document.querySelectorAll("textarea[data-rule-builder]")) {
      field.ruleBuilder = new RuleBuilder(field);
    }
    const variants = document.querySelector("textarea[data-variant-rows]");
    const type = document.getElementById("type");
    if (variants && type) variants.variantRows = new VariantRows(variants, type);
    for (const form of document.querySelectorAll("form[data-preview-url]")) livePreview(form);
  });
})();
