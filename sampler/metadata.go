package sampler

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/inspection"
)

// frontMatterMetadata reads the `metadata:` map of a log's YAML front
// matter (front, whose first line is the log's line first) into the run's
// metadata (inspection.Metadata, README "Input formats"):
//
//	---
//	system: bug-triage
//	metadata:
//	  task: t17
//	  model_family: claude
//	---
//
// A string, number or boolean value is kept as its text (a boolean as
// true/false); a null one is no field. A nested map or list, and a
// `metadata:` that is not a map, is left out with a warning naming the
// log line and the field. It never fails: metadata is never a reason to
// lose a run.
func frontMatterMetadata(front []byte, first int) (inspection.Metadata, []string) {
	var doc yaml.Node
	if yaml.Unmarshal(front, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	top := doc.Content[0]
	var md inspection.Metadata
	var warn []string
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != "metadata" {
			continue
		}
		m := deref(top.Content[i+1])
		switch {
		case m.Kind == yaml.ScalarNode && m.Tag == "!!null":
			continue
		case m.Kind != yaml.MappingNode:
			warn = append(warn, fmt.Sprintf("line %d: front matter metadata is not a map: skipped", first+top.Content[i].Line-1))
			continue
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			k, v := m.Content[j].Value, deref(m.Content[j+1])
			var why string
			switch {
			case v.Kind == yaml.MappingNode:
				why = "a map"
			case v.Kind == yaml.SequenceNode:
				why = "a list"
			case v.Tag == "!!null":
				continue
			}
			if why != "" {
				warn = append(warn, fmt.Sprintf("line %d: front matter metadata.%s is %s; metadata values are strings, numbers or booleans: skipped",
					first+m.Content[j].Line-1, k, why))
				continue
			}
			if md == nil {
				md = inspection.Metadata{}
			}
			val := v.Value
			if v.Tag == "!!bool" {
				val = strings.ToLower(val)
			}
			md[k] = val
		}
	}
	return md, warn
}

// deref follows a YAML alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
