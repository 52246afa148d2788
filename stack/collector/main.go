// An OpenTelemetry Collector with exactly the components docker/collector.yaml
// and its Honeycomb overlay use, at the release the contrib image in
// docker/compose.yaml ships. CI builds it so the stack runs without Docker;
// `otelcol-nous components` lists what is in it, and a test compares that
// list with the configs.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func components() (otelcol.Factories, error) {
	var factories otelcol.Factories
	var err error
	if factories.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return factories, err
	}
	if factories.Processors, err = otelcol.MakeFactoryMap(batchprocessor.NewFactory()); err != nil {
		return factories, err
	}
	factories.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](
		otlpexporter.NewFactory(),
		// otlp_http/viewer: traces and logs to the violation viewer (nous-session-invariant view).
		otlphttpexporter.NewFactory(),
		prometheusexporter.NewFactory(),
	)
	if err != nil {
		return factories, err
	}
	factories.Telemetry = otelconftelemetry.NewFactory()
	return factories, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-nous",
			Description: "OpenTelemetry Collector for the nous-session-invariant stack",
			Version:     "0.165.0",
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				// file: for --config=path, env: for ${env:HONEYCOMB_API_KEY}.
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
				DefaultScheme:     "env",
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
