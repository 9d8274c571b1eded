package envelope

// azureEnvelope reads Azure Monitor Log Analytics query results: the REST
// API's tables[].columns/rows and the `az monitor log-analytics query`
// array of objects (every value a string), for both the AKSControlPlane
// table (Message, PodName, TimeGenerated) and the legacy AzureDiagnostics
// one (log_s, pod_s, Category), and node tables (Syslog: SyslogMessage,
// ProcessName, Computer; ContainerLogV2: LogMessage, PodName).
var azureEnvelope = &Envelope{
	Name: "azure",
	Doc:  "Azure Monitor Log Analytics (REST tables, az monitor log-analytics query JSON; AKSControlPlane and AzureDiagnostics)",
	shapes: []shape{{
		name: "log-analytics",
		score: func(s *sample) int {
			if s.has(`"tables"`, `"columns"`, `"rows"`) {
				return jsonScore(s, nil, []string{`"TimeGenerated"`, `"Message"`, `"log_s"`, `"Category"`})
			}
			return jsonScore(s, []string{`"TimeGenerated"`}, []string{`"TableName"`, `"Message"`, `"log_s"`, `"Category"`, `"PodName"`, `"pod_s"`})
		},
		decode: azureDoc.decodeJSON,
	}},
}

var azureDoc = &docSpec{
	members: []member{{path: []string{"tables"}, item: itemRow, group: &group{header: "columns", items: "rows"}}},
	fields: &fieldMap{
		time:  []timeField{{path: "TimeGenerated", naive: TimeUTCByFormat}},
		msg:   []string{"Message", "log_s", "msg_s", "SyslogMessage", "LogMessage"},
		level: []string{"Level", "level_s"},
		id:    []string{"_ItemId"},
		label: [numLabels][]string{
			lComponent: {"Category", "ProcessName"},
			lPod:       {"PodName", "pod_s"},
			lNamespace: {"Namespace", "namespace_s", "PodNamespace"},
			lContainer: {"ContainerName", "containerName_s"},
			lNode:      {"Computer", "NodeName", "HostName"},
			lStream:    {"Stream", "stream_s"},
		},
	},
}
