// The Cluster page's place in the navigation, beside the workload views.
export const CLUSTER_PAGE = {
  id: 'cluster',
  label: 'Cluster',
  hint: 'Your Paralab runs on the Slurm cluster: their tasks, progress and results',
} as const
