package mcp

import "github.com/openlolo/openlolo/appliance/control"

// Small builders for the tools' JSON Schemas (draft 2020-12 subset).

type schema = map[string]any

func object(required []string, props schema) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func number(desc string, lo, hi float64, def any) schema {
	s := schema{"type": "number", "minimum": lo, "maximum": hi, "description": desc}
	if def != nil {
		s["default"] = def
	}
	return s
}

func integer(desc string, lo, hi, def int) schema {
	return schema{"type": "integer", "minimum": lo, "maximum": hi, "default": def, "description": desc}
}

func str(desc string, maxLen int) schema {
	s := schema{"type": "string", "description": desc}
	if maxLen > 0 {
		s["maxLength"] = maxLen
	}
	return s
}

func enum(desc string, values []string, def string) schema {
	s := schema{"type": "string", "enum": values, "description": desc}
	if def != "" {
		s["default"] = def
	}
	return s
}

func boolean(desc string, def bool) schema {
	return schema{"type": "boolean", "default": def, "description": desc}
}

func uuidProp(desc string) schema {
	return schema{"type": "string", "format": "uuid", "minLength": 36, "maxLength": 36, "description": desc}
}

func opProp() schema {
	return uuidProp("Optional: a fresh UUID per intended action; send the same one only to retry the identical call after a dropped connection. The box runs each id at most once.")
}

// frameProps are the members of every touch tool.
func frameProps(props schema) schema {
	props["frame_id"] = str("frame_id of YOUR latest openlolo_screenshot (or observation).", 80)
	props["geometry_epoch"] = schema{"type": []string{"string", "integer"}, "description": "geometry_epoch of that same screenshot."}
	props["x"] = number("Horizontal position as a fraction of the screenshot's width: 0 left edge, 1 right edge.", 0, 1, nil)
	props["y"] = number("Vertical position as a fraction of the screenshot's height: 0 top, 1 bottom.", 0, 1, nil)
	return props
}

// inputProps adds observe, settle and operation_id.
func inputProps(props schema, settle float64) schema {
	props["observe"] = boolean("Return a fresh screenshot (image and frame) in the answer after the action.", true)
	props["settle"] = number("Seconds to wait after the action before the observation screenshot.", 0, 5, settle)
	props["operation_id"] = opProp()
	return props
}

func errorSchema() schema {
	return object([]string{"code", "message", "retryable", "next_steps"}, schema{
		"code":           schema{"type": "string", "description": "Stable error code, e.g. FRAME_EXPIRED."},
		"message":        schema{"type": "string"},
		"retryable":      schema{"type": "boolean"},
		"next_steps":     schema{"type": "array", "items": schema{"type": "string"}},
		"retry_after_ms": schema{"type": "integer"},
	})
}

// output is a tool's output schema: the common answer members and the
// tool's own fields (all optional: a failed answer carries only error).
func output(mutating bool, fields schema) schema {
	props := schema{
		"status": enum("ok, failed (error says why) or pending (still running).", []string{control.StatusOK, control.StatusFailed, control.StatusPending}, ""),
		"error":  errorSchema(),
	}
	if mutating {
		props["operation_id"] = schema{"type": "string", "description": "The operation's id (yours or one the box generated)."}
		props["dispatched"] = schema{"type": "boolean", "description": "false: nothing reached the phone."}
		props["state"] = schema{"type": "string", "description": "Journal state: queued, dispatched, succeeded, failed, cancelled or outcome_unknown."}
		props["replayed"] = schema{"type": "boolean", "description": "true: this is the stored answer of an earlier call with the same operation_id."}
	}
	for k, v := range fields {
		props[k] = v
	}
	return schema{"type": "object", "properties": props, "required": []string{"status"}}
}

func frameOut() schema {
	return schema{
		"frame_id":       schema{"type": "string"},
		"geometry_epoch": schema{"type": "string"},
		"width":          schema{"type": "integer", "description": "Width of the returned image in pixels."},
		"height":         schema{"type": "integer"},
		"native_width":   schema{"type": "integer", "description": "The phone screen's own width in pixels."},
		"native_height":  schema{"type": "integer"},
		"age_ms":         schema{"type": "integer", "description": "How old the picture is."},
		"format":         schema{"type": "string"},
	}
}

func observationOut() schema {
	return schema{
		"observation":       schema{"type": "object", "properties": frameOut(), "description": "The screenshot taken after the action (its image is the answer's image block)."},
		"observation_error": errorSchema(),
		"reports":           schema{"type": "integer", "description": "HID reports written to the phone."},
		"took_ms":           schema{"type": "integer", "description": "How long the input took."},
		"cadence": schema{"type": "object", "description": "Gestures: the pacing achieved (median_interval_ms, max_gap_ms between movement reports; skipped stale points).",
			"properties": schema{"median_interval_ms": schema{"type": "number"}, "max_gap_ms": schema{"type": "number"}, "skipped": schema{"type": "integer"}}},
	}
}
