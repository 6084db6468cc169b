import "node:module";
import { readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { defineConfig } from "electron-vite";
import vue from "@vitejs/plugin-vue";
// electron.vite.config.ts
const workerEntries = Object.fromEntries(readdirSync("src/main", {
	recursive: true,
	encoding: "utf8"
}).filter((f) => f.endsWith("-worker.ts")).map((f) => [basename(f, ".ts"), resolve(join("src/main", f))]));
var electron_vite_config_default = defineConfig({
	main: { build: {
		externalizeDeps: false,
		rollupOptions: {
			external: [...{ include: [
				"webgpu",
				"@napi-rs/canvas",
				"@duckdb/node-api",
				"electron"
			] }.include, /^@napi-rs\/canvas/],
			input: {
				index: resolve("src/main/index.ts"),
				cli: resolve("src/main/cli.ts"),
				"backend-host": resolve("src/main/backend-host.ts"),
				...workerEntries
			},
			output: {
				format: "es",
				entryFileNames: "[name].js",
				chunkFileNames: "[name]-[hash].js"
			}
		}
	} },
	preload: { build: { rollupOptions: {
		input: { index: resolve("src/preload/index.ts") },
		output: {
			format: "cjs",
			entryFileNames: "[name].cjs"
		}
	} } },
	renderer: {
		root: "src/renderer",
		build: { rollupOptions: { input: { index: resolve("src/renderer/index.html") } } },
		plugins: [vue()]
	}
});
export { electron_vite_config_default as default };

//# sourceMappingURL=data:application/json;charset=utf-8;base64,eyJ2ZXJzaW9uIjozLCJmaWxlIjoiZWxlY3Ryb24udml0ZS5jb25maWcuanMiLCJuYW1lcyI6W10sInNvdXJjZXMiOlsiL3dvcmsvbWFpbi9lbGVjdHJvbi52aXRlLmNvbmZpZy50cyJdLCJzb3VyY2VzQ29udGVudCI6WyJpbXBvcnQgeyByZWFkZGlyU3luYyB9IGZyb20gJ25vZGU6ZnMnXG5pbXBvcnQgeyBiYXNlbmFtZSwgam9pbiwgcmVzb2x2ZSB9IGZyb20gJ25vZGU6cGF0aCdcbmltcG9ydCB7IGRlZmluZUNvbmZpZyB9IGZyb20gJ2VsZWN0cm9uLXZpdGUnXG5pbXBvcnQgdnVlIGZyb20gJ0B2aXRlanMvcGx1Z2luLXZ1ZSdcblxuLy8gRXZlcnl0aGluZyB0aGUgQ0xJIG5lZWRzIGV4Y2VwdCBuYXRpdmUgYWRkb25zIGlzIGJ1bmRsZWQsIHNvIGBvdXQvbWFpbmAgcnVucyBvbiBhIG1hY2hpbmVcbi8vIHRoYXQgaGFzIG9ubHkgTm9kZSBhbmQgdGhlIGB3ZWJncHVgIGFkZG9uIChzZWUgZG9jcy9iZW5jaG1hcmtzLm1kKS5cbi8vIFdvcmtlciB0aHJlYWQgZW50cmllcyBhcmUgZm91bmQgYnkgbmFtZTogZXZlcnkgYHNyYy9tYWluLyoqLyotd29ya2VyLnRzYCBpcyBidWlsdCBiZXNpZGUgdGhlIENMSS5cbmNvbnN0IHdvcmtlckVudHJpZXMgPSBPYmplY3QuZnJvbUVudHJpZXMoXG4gIHJlYWRkaXJTeW5jKCdzcmMvbWFpbicsIHsgcmVjdXJzaXZlOiB0cnVlLCBlbmNvZGluZzogJ3V0ZjgnIH0pXG4gICAgLmZpbHRlcigoZikgPT4gZi5lbmRzV2l0aCgnLXdvcmtlci50cycpKVxuICAgIC5tYXAoKGYpID0+IFtiYXNlbmFtZShmLCAnLnRzJyksIHJlc29sdmUoam9pbignc3JjL21haW4nLCBmKSldKSxcbilcblxuY29uc3QgbmF0aXZlT25seSA9IHsgaW5jbHVkZTogWyd3ZWJncHUnLCAnQG5hcGktcnMvY2FudmFzJywgJ0BkdWNrZGIvbm9kZS1hcGknLCAnZWxlY3Ryb24nXSB9XG5cbmV4cG9ydCBkZWZhdWx0IGRlZmluZUNvbmZpZyh7XG4gIG1haW46IHtcbiAgICBidWlsZDoge1xuICAgICAgZXh0ZXJuYWxpemVEZXBzOiBmYWxzZSxcbiAgICAgIHJvbGx1cE9wdGlvbnM6IHtcbiAgICAgICAgZXh0ZXJuYWw6IFsuLi5uYXRpdmVPbmx5LmluY2x1ZGUsIC9eQG5hcGktcnNcXC9jYW52YXMvXSxcbiAgICAgICAgaW5wdXQ6IHtcbiAgICAgICAgICBpbmRleDogcmVzb2x2ZSgnc3JjL21haW4vaW5kZXgudHMnKSxcbiAgICAgICAgICBjbGk6IHJlc29sdmUoJ3NyYy9tYWluL2NsaS50cycpLFxuICAgICAgICAgICdiYWNrZW5kLWhvc3QnOiByZXNvbHZlKCdzcmMvbWFpbi9iYWNrZW5kLWhvc3QudHMnKSxcbiAgICAgICAgICAuLi53b3JrZXJFbnRyaWVzLFxuICAgICAgICB9LFxuICAgICAgICBvdXRwdXQ6IHtcbiAgICAgICAgICBmb3JtYXQ6ICdlcycsXG4gICAgICAgICAgZW50cnlGaWxlTmFtZXM6ICdbbmFtZV0uanMnLFxuICAgICAgICAgIC8vIENodW5rcyBiZXNpZGUgdGhlIGVudHJpZXM6IHdvcmtlciBzY3JpcHRzIGFyZSBmb3VuZCByZWxhdGl2ZSB0byBhbnkgY2h1bmsuXG4gICAgICAgICAgY2h1bmtGaWxlTmFtZXM6ICdbbmFtZV0tW2hhc2hdLmpzJyxcbiAgICAgICAgfSxcbiAgICAgIH0sXG4gICAgfSxcbiAgfSxcbiAgcHJlbG9hZDoge1xuICAgIGJ1aWxkOiB7XG4gICAgICByb2xsdXBPcHRpb25zOiB7XG4gICAgICAgIGlucHV0OiB7IGluZGV4OiByZXNvbHZlKCdzcmMvcHJlbG9hZC9pbmRleC50cycpIH0sXG4gICAgICAgIG91dHB1dDogeyBmb3JtYXQ6ICdjanMnLCBlbnRyeUZpbGVOYW1lczogJ1tuYW1lXS5janMnIH0sXG4gICAgICB9LFxuICAgIH0sXG4gIH0sXG4gIHJlbmRlcmVyOiB7XG4gICAgcm9vdDogJ3NyYy9yZW5kZXJlcicsXG4gICAgYnVpbGQ6IHsgcm9sbHVwT3B0aW9uczogeyBpbnB1dDogeyBpbmRleDogcmVzb2x2ZSgnc3JjL3JlbmRlcmVyL2luZGV4Lmh0bWwnKSB9IH0gfSxcbiAgICBwbHVnaW5zOiBbdnVlKCldLFxuICB9LFxufSlcbiJdLCJtYXBwaW5ncyI6Ijs7Ozs7O0FBUUEsTUFBTSxnQkFBZ0IsT0FBTyxZQUMzQixZQUFZLFlBQVk7Q0FBRSxXQUFXO0NBQU0sVUFBVTtBQUFPLENBQUMsQ0FBQyxDQUMzRCxRQUFRLE1BQU0sRUFBRSxTQUFTLFlBQVksQ0FBQyxDQUFDLENBQ3ZDLEtBQUssTUFBTSxDQUFDLFNBQVMsR0FBRyxLQUFLLEdBQUcsUUFBUSxLQUFLLFlBQVksQ0FBQyxDQUFDLENBQUMsQ0FBQyxDQUNsRTtBQUlBLElBQUEsK0JBQWUsYUFBYTtDQUMxQixNQUFNLEVBQ0osT0FBTztFQUNMLGlCQUFpQjtFQUNqQixlQUFlO0dBQ2IsVUFBVSxDQUFDLEdBQUcsRUFQRCxTQUFTO0lBQUM7SUFBVTtJQUFtQjtJQUFvQjtHQUFVLEVBT3BFLEVBQVcsU0FBUyxtQkFBbUI7R0FDckQsT0FBTztJQUNMLE9BQU8sUUFBUSxtQkFBbUI7SUFDbEMsS0FBSyxRQUFRLGlCQUFpQjtJQUM5QixnQkFBZ0IsUUFBUSwwQkFBMEI7SUFDbEQsR0FBRztHQUNMO0dBQ0EsUUFBUTtJQUNOLFFBQVE7SUFDUixnQkFBZ0I7SUFFaEIsZ0JBQWdCO0dBQ2xCO0VBQ0Y7Q0FDRixFQUNGO0NBQ0EsU0FBUyxFQUNQLE9BQU8sRUFDTCxlQUFlO0VBQ2IsT0FBTyxFQUFFLE9BQU8sUUFBUSxzQkFBc0IsRUFBRTtFQUNoRCxRQUFRO0dBQUUsUUFBUTtHQUFPLGdCQUFnQjtFQUFhO0NBQ3hELEVBQ0YsRUFDRjtDQUNBLFVBQVU7RUFDUixNQUFNO0VBQ04sT0FBTyxFQUFFLGVBQWUsRUFBRSxPQUFPLEVBQUUsT0FBTyxRQUFRLHlCQUF5QixFQUFFLEVBQUUsRUFBRTtFQUNqRixTQUFTLENBQUMsSUFBSSxDQUFDO0NBQ2pCO0FBQ0YsQ0FBQyJ9