package livesource

import "slices"

// DefaultSelectors are the stream selectors tried, in order, for a role
// when no --selector is given: the first that matches any record in the
// window is used (and said in a note). Label and field names are whatever
// the collector set; these are the defaults of the common ones:
//
//	Promtail / Grafana Alloy   kubernetes_sd relabelled to namespace, pod, container;
//	                           journal scrape relabelled to unit (= _SYSTEMD_UNIT)
//	Loki 3 / Alloy             service_name (derived from the container or unit)
//	Fluent Bit                 kubernetes filter: kubernetes.container_name (Loki
//	                           output with auto_kubernetes_labels: container_name);
//	                           systemd input: _SYSTEMD_UNIT
//	Fluentd                    kubernetes_metadata: kubernetes.container_name
//	Vector                     kubernetes_logs: kubernetes.container_name (flattened
//	                           kubernetes_container_name in Loki); journald: _SYSTEMD_UNIT
//	Filebeat / Elastic Agent   ECS: kubernetes.container.name, systemd.unit
//	journald upload            _SYSTEMD_UNIT, SYSLOG_IDENTIFIER
//
// kubeadm's static pod is named kube-controller-manager-NODE and its
// container kube-controller-manager; the kubelet runs as kubelet.service.
var DefaultSelectors = map[Store]map[string][]string{
	Loki: {
		"kcm": {
			`{container="kube-controller-manager"}`,
			`{container_name="kube-controller-manager"}`,
			`{kubernetes_container_name="kube-controller-manager"}`,
			`{service_name="kube-controller-manager"}`,
			`{component="kube-controller-manager"}`,
		},
		"kubelet": {
			`{unit="kubelet.service"}`,
			`{systemd_unit="kubelet.service"}`,
			`{_SYSTEMD_UNIT="kubelet.service"}`,
			`{service_name="kubelet"}`,
			`{syslog_identifier="kubelet"}`,
		},
	},
	VictoriaLogs: {
		"kcm": {
			`container:="kube-controller-manager"`,
			`kubernetes.container_name:="kube-controller-manager"`,
			`kubernetes.container.name:="kube-controller-manager"`,
			`kubernetes_container_name:="kube-controller-manager"`,
			`service_name:="kube-controller-manager"`,
		},
		"kubelet": {
			`_SYSTEMD_UNIT:="kubelet.service"`,
			`unit:="kubelet.service"`,
			`systemd.unit:="kubelet.service"`,
			`SYSLOG_IDENTIFIER:="kubelet"`,
			`service_name:="kubelet"`,
		},
	},
	Elasticsearch: esDefaultSelectors,
	OpenSearch:    esDefaultSelectors,
}

// esDefaultSelectors are query_string filters (phrase queries work on text
// and keyword fields alike).
var esDefaultSelectors = map[string][]string{
	"kcm": {
		`kubernetes.container_name:"kube-controller-manager"`,
		`kubernetes.container.name:"kube-controller-manager"`,
		`kubernetes_container_name:"kube-controller-manager"`,
	},
	"kubelet": {
		`systemd.unit:"kubelet.service"`,
		`_SYSTEMD_UNIT:"kubelet.service"`,
		`SYSLOG_IDENTIFIER:"kubelet"`,
		`unit:"kubelet.service"`,
	},
}

// roleSelectors returns, per role to fetch, the selectors to try and
// whether they are defaults. Given selectors are used alone.
func roleSelectors(store Store, given map[string]string) (roles []string, cands map[string][]string, defaults bool) {
	cands = map[string][]string{}
	if len(given) > 0 {
		for role, sel := range given {
			roles = append(roles, role)
			cands[role] = []string{sel}
		}
		slices.Sort(roles)
		return roles, cands, false
	}
	for _, role := range DefaultRoles {
		roles = append(roles, role)
		cands[role] = DefaultSelectors[store][role]
	}
	return roles, cands, true
}
