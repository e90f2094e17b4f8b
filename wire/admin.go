package wire

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/metrics"
)

// MetricsPrefix prefixes every family /metrics serves.
const MetricsPrefix = "kafka_coordinator_"

// adminTimeout bounds one admin HTTP request's work on the coordinators.
const adminTimeout = 30 * time.Second

// Metrics measures every broker's coordinator metrics, each series tagged
// with its broker, sorted.
func (cl *Cluster) Metrics(ctx context.Context) ([]metrics.Sample, error) {
	var out []metrics.Sample
	for _, b := range cl.brokers {
		snap, err := live.Read(ctx, b.driver, func(c *coordinator.Coordinator) ([]metrics.Sample, error) {
			return c.MetricsSnapshot(), nil
		})
		if err != nil {
			return nil, err
		}
		for _, s := range snap {
			kv := []string{"broker", strconv.Itoa(int(b.node))}
			for _, t := range s.Name.Tags {
				kv = append(kv, t.Key, t.Value)
			}
			name, err := metrics.NewMetricName(s.Name.Name, s.Name.Group, s.Name.Description, kv...)
			if err != nil {
				return nil, err
			}
			out = append(out, metrics.Sample{Name: name, Kind: s.Kind, Value: s.Value})
		}
	}
	slices.SortFunc(out, func(a, b metrics.Sample) int { return a.Name.Compare(b.Name) })
	return out, nil
}

// Handler serves the operator's HTTP routes:
//
//	GET  /metrics                          every broker's coordinator metrics, Prometheus text
//	GET  /admin/coordinators               the broker leading each __consumer_offsets partition
//	POST /admin/move?partition=P&broker=B  move partition P to broker B (clients see NOT_COORDINATOR
//	                                       and follow with FindCoordinator)
func (cl *Cluster) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, req *http.Request) {
		ctx, cancel := context.WithTimeout(req.Context(), adminTimeout)
		defer cancel()
		samples, err := cl.Metrics(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if err := metrics.WritePrometheus(w, samples, MetricsPrefix); err != nil {
			cl.log.Warn("writing /metrics failed", "err", err)
		}
	})
	mux.HandleFunc("GET /admin/coordinators", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for p := range cl.cfg.Coordinator.NumPartitions {
			node, _ := cl.CoordinatorFor(p)
			fmt.Fprintf(w, "%d %d\n", p, node)
		}
	})
	mux.HandleFunc("POST /admin/move", func(w http.ResponseWriter, req *http.Request) {
		p, perr := strconv.ParseInt(req.URL.Query().Get("partition"), 10, 32)
		b, berr := strconv.ParseInt(req.URL.Query().Get("broker"), 10, 32)
		if perr != nil || berr != nil {
			http.Error(w, "usage: POST /admin/move?partition=P&broker=B", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(req.Context(), adminTimeout)
		defer cancel()
		if err := cl.MoveCoordinator(ctx, int32(p), int32(b)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "__consumer_offsets partition %d is now led by broker %d\n", p, b)
	})
	return mux
}
