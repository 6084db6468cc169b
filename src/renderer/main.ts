import { createApp } from 'vue'
import App from './App.vue'
import { createApi } from './api'
import { provideDashboard } from './composables/api'
import { createErrorLog } from './composables/errors'

const api = createApi()
const errors = createErrorLog()
api.onConnectionError((message) => errors.report(message))

const app = createApp(App)
provideDashboard(app, api, errors)
app.config.errorHandler = (e) => errors.report(e, 'Unexpected error in the dashboard')
app.mount('#app')
