public enum _EvalPlaceholder {}
